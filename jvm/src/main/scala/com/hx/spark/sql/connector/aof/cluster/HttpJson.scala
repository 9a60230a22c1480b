package com.hx.spark.sql.connector.aof.cluster

import java.io.IOException
import java.net.{HttpURLConnection, URL}
import java.nio.charset.StandardCharsets.UTF_8
import javax.net.ssl.{HttpsURLConnection, SSLSocketFactory}

import scala.io.Source

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * A GET of a JSON document, as the cluster managers' REST interfaces serve them. Java's own
 * `HttpURLConnection`: it runs on every Java Spark 3 and 4 run on, and a client library of a
 * cluster manager (fabric8's, for Kubernetes) is neither on every classpath nor of one API
 * across the Spark lines.
 */
private[cluster] object HttpJson {
  private val TimeoutMs = 10000
  private val mapper = new ObjectMapper()

  /** @throws IOException when the server cannot be reached or answers other than 200 */
  def get(
      url: String,
      headers: Map[String, String] = Map.empty,
      tls: Option[SSLSocketFactory] = None): JsonNode = {
    val connection = new URL(url).openConnection().asInstanceOf[HttpURLConnection]
    try {
      connection.setConnectTimeout(TimeoutMs)
      connection.setReadTimeout(TimeoutMs)
      connection.setRequestProperty("Accept", "application/json")
      headers.foreach { case (k, v) => connection.setRequestProperty(k, v) }
      (connection, tls) match {
        case (https: HttpsURLConnection, Some(factory)) => https.setSSLSocketFactory(factory)
        case _ => ()
      }
      val status = connection.getResponseCode
      if (status != HttpURLConnection.HTTP_OK) {
        val body = Option(connection.getErrorStream).fold("")(s =>
          try Source.fromInputStream(s, UTF_8.name).mkString.take(200)
          finally s.close())
        throw new IOException(s"HTTP $status from $url${if (body.isEmpty) "" else s": $body"}")
      }
      val in = connection.getInputStream
      try mapper.readTree(in)
      finally in.close()
    } finally connection.disconnect()
  }
}
