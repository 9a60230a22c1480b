package com.hx.spark.sql.connector.aof.offset

import scala.collection.JavaConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

import com.hx.spark.sql.connector.aof.files.{FileKey, Fingerprint}

/**
 * Offsets as JSON. Written through Jackson's tree model rather than reflection so that the format
 * is explicit, sorted (equal offsets give equal text) and independent of the Scala module version
 * each Spark release ships.
 */
object OffsetJson {
  val Version: Int = 1
  private val mapper = new ObjectMapper()

  def write(offset: AofOffset): String = {
    val root = mapper.createObjectNode()
    root.put("version", Version)
    val hosts = root.putObject("hosts")
    offset.hosts.toSeq.sortBy(_._1).foreach { case (host, h) =>
      val hostNode = hosts.putObject(host)
      hostNode.put("nextSerial", h.nextSerial)
      val files = hostNode.putObject("files")
      h.files.toSeq.sortBy(_._1).foreach { case (id, f) => writeFile(files.putObject(id), f) }
    }
    mapper.writeValueAsString(root)
  }

  def read(json: String): AofOffset = {
    val root = mapper.readTree(json)
    val version = root.path("version").asInt(-1)
    if (version != Version) {
      throw new IllegalStateException(
        s"Unsupported aof offset version $version in checkpoint (this build reads $Version): " +
          "use the connector version that wrote the checkpoint, or start a new checkpoint.")
    }
    val hosts = root.path("hosts").fields().asScala.map { e =>
      val h = e.getValue
      val files = h.path("files").fields().asScala.map(f => f.getKey -> readFile(f.getValue))
      e.getKey -> HostOffsets(h.path("nextSerial").asLong, files.toMap)
    }
    AofOffset(hosts.toMap)
  }

  private def writeFile(node: ObjectNode, f: FileOffset): Unit = {
    node.put("path", f.path)
    node.put("dev", f.key.dev)
    node.put("ino", f.key.ino)
    node.put("serial", f.serial)
    node.put("first", f.first)
    node.put("pos", f.pos)
    node.put("fpLength", f.fingerprint.length)
    node.put("fpMd5", f.fingerprint.md5)
    f.tail.foreach { t =>
      node.put("tailLength", t.length)
      node.put("tailMd5", t.md5)
    }
    node.put("seen", f.seen)
  }

  private def readFile(n: JsonNode): FileOffset = FileOffset(
    path = n.path("path").asText,
    key = FileKey(n.path("dev").asLong, n.path("ino").asLong),
    serial = n.path("serial").asLong,
    first = n.path("first").asLong,
    pos = n.path("pos").asLong,
    fingerprint = Fingerprint(n.path("fpLength").asLong, n.path("fpMd5").asText),
    tail =
      if (n.has("tailMd5")) Some(Fingerprint(n.path("tailLength").asLong, n.path("tailMd5").asText))
      else None,
    seen = n.path("seen").asLong
  )
}
