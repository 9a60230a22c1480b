package com.hx.spark.sql.connector.aof.cluster

import java.net.URLEncoder
import java.nio.charset.StandardCharsets.UTF_8
import javax.net.ssl.SSLSocketFactory

import scala.collection.JavaConverters._

import com.fasterxml.jackson.databind.JsonNode

/**
 * The Ready nodes of a Kubernetes API server (`GET /api/v1/nodes`), by the names executors read
 * from `spec.nodeName`, a page of 500 at a time.
 *
 * @param url      the API server, `https://kubernetes.default.svc:443`
 * @param selector a label selector the nodes must match (`logs=true`)
 */
final class KubernetesNodes(url: String, selector: Option[String], account: ServiceAccount)
    extends NodeDiscovery {
  override def source: String =
    s"the Kubernetes API server at $url" + selector.fold("")(s => s" (nodes matching $s)")

  override def nodes(): Set[String] = {
    // Read at every call: a service account's token is rotated while the pod runs.
    val headers = account.token.map(t => "Authorization" -> s"Bearer $t").toMap
    val tls = account.authorities
    val query = selector.map(s => s"labelSelector=${enc(s)}&").getOrElse("") + "limit=500"
    pages(s"${url.stripSuffix("/")}/api/v1/nodes?$query", headers, tls)
      .flatMap(_.path("items").elements().asScala)
      .filter(ready)
      .map(_.path("metadata").path("name").asText)
      .toSet
  }

  /** The list's pages, each fetched once the one before names the next (`continue`). */
  private def pages(
      first: String,
      headers: Map[String, String],
      tls: Option[SSLSocketFactory]): Iterator[JsonNode] = {
    var next: Option[String] = Some(first)
    Iterator.continually(next).takeWhile(_.nonEmpty).map { page =>
      val json = HttpJson.get(page.get, headers, tls)
      val token = json.path("metadata").path("continue").asText("")
      next = if (token.isEmpty) None else Some(s"$first&continue=${enc(token)}")
      json
    }
  }

  private def ready(node: JsonNode): Boolean =
    node
      .path("status")
      .path("conditions")
      .elements()
      .asScala
      .exists(c => c.path("type").asText == "Ready" && c.path("status").asText == "True")

  private def enc(s: String): String = URLEncoder.encode(s, UTF_8.name)
}
