package com.hx.spark.sql.connector.aof.cluster

import java.nio.file.Files
import java.util.Collections

import scala.jdk.CollectionConverters._

import io.fabric8.kubernetes.api.model.NodeBuilder
import io.fabric8.kubernetes.client.server.mock.{KubernetesCrudDispatcher, KubernetesMockServer}
import io.fabric8.mockwebserver.{Context, MockWebServer}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/**
 * The nodes of a Kubernetes API server: fabric8's mock server, as Spark's Kubernetes suites use,
 * in its CRUD mode, where it keeps the nodes created and filters them by label selector itself.
 */
class KubernetesNodesSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val server = new KubernetesMockServer(
    new Context(),
    new MockWebServer(),
    new java.util.HashMap(),
    new KubernetesCrudDispatcher(Collections.emptyList()),
    false)
  private val token = Files.createTempFile("token", "")
  private val account = ServiceAccount(token, token.resolveSibling("no-such-ca.crt"))

  override def beforeAll(): Unit = {
    server.init()
    val client = server.createClient()
    try {
      def node(name: String, ready: String, labels: (String, String)*) =
        new NodeBuilder()
          .withNewMetadata()
          .withName(name)
          .withLabels(labels.toMap.asJava)
          .endMetadata()
          .withNewStatus()
          .addNewCondition()
          .withType("Ready")
          .withStatus(ready)
          .endCondition()
          .endStatus()
          .build()
      Seq(
        node("node-1", "True", "logs" -> "true"),
        node("node-2", "True"),
        node("node-3", "False", "logs" -> "true"),
        node("node-4", "Unknown")
      ).foreach(n => client.nodes().resource(n).create())
    } finally client.close()
    Files.write(token, "a-token\n".getBytes("UTF-8"))
  }

  override def afterAll(): Unit = {
    server.destroy()
    Files.deleteIfExists(token)
  }

  private def url = server.url("/").stripSuffix("/")

  test("the Ready nodes, by name, asked with the pod's service account token") {
    assert(new KubernetesNodes(url, None, account).nodes() === Set("node-1", "node-2"))
    assert(server.getLastRequest.getHeader("Authorization") === "Bearer a-token")
    assert(server.getLastRequest.getPath.startsWith("/api/v1/nodes?limit=500"))
  }

  test("a label selector keeps only the nodes it matches") {
    assert(new KubernetesNodes(url, Some("logs=true"), account).nodes() === Set("node-1"))
    assert(new KubernetesNodes(url, Some("logs=false"), account).nodes() === Set.empty)
  }

  test("without a service account, nothing is sent as a token") {
    val none = ServiceAccount(token.resolveSibling("no-token"), token.resolveSibling("no-ca"))
    assert(new KubernetesNodes(url, None, none).nodes().nonEmpty)
    assert(server.getLastRequest.getHeader("Authorization") === null)
  }
}
