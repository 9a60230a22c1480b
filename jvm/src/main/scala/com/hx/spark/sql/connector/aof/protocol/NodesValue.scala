package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.JavaConverters._

import com.fasterxml.jackson.databind.ObjectMapper

/**
 * What the driver keeps at `runs/<runId>/nodes` for `status`: how many nodes the query must read
 * (absent while the cluster manager has not named them) and those no endpoint serves, as JSON:
 * `{"expected": 3, "unread": ["node-3"]}`. Plain, not sealed: it steers nothing.
 */
object NodesValue {
  private val mapper = new ObjectMapper()

  def encode(expected: Option[Int], unread: Seq[String]): Array[Byte] = {
    val root = mapper.createObjectNode()
    expected.foreach(root.put("expected", _))
    val names = root.putArray("unread")
    unread.sorted.foreach(names.add)
    mapper.writeValueAsBytes(root)
  }

  def decode(bytes: Array[Byte]): (Option[Int], Seq[String]) = {
    val root = mapper.readTree(new String(bytes, UTF_8))
    (
      Option(root.get("expected")).map(_.asInt),
      root.path("unread").elements().asScala.map(_.asText).toVector)
  }
}
