package com.hx.spark.sql.connector.aof.offset

import java.io.StringWriter

import scala.collection.JavaConverters._

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import com.hx.spark.sql.connector.aof.files.FileJson.{
  key,
  optionalPrint,
  print,
  writeKey,
  writePrint
}

/**
 * Offsets as JSON. Written field by field through Jackson's streaming generator rather than by
 * reflection, so that the format is explicit, sorted (equal offsets give equal text) and
 * independent of the Scala module version each Spark release ships.
 */
object OffsetJson {
  val Version: Int = 1
  private val mapper = new ObjectMapper()

  def write(offset: AofOffset): String = {
    val out = new StringWriter()
    val g = mapper.getFactory.createGenerator(out)
    try {
      g.writeStartObject()
      g.writeNumberField("version", Version)
      g.writeObjectFieldStart("hosts")
      offset.hosts.toSeq.sortBy(_._1).foreach { case (host, h) =>
        g.writeObjectFieldStart(host)
        g.writeNumberField("nextSerial", h.nextSerial)
        g.writeObjectFieldStart("files")
        h.files.toSeq.sortBy(_._1).foreach { case (id, f) =>
          g.writeObjectFieldStart(id)
          writeFile(g, f)
          g.writeEndObject()
        }
        g.writeEndObject()
        g.writeEndObject()
      }
      g.writeEndObject()
      g.writeEndObject()
    } finally g.close()
    out.toString
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

  private def writeFile(g: JsonGenerator, f: FileOffset): Unit = {
    g.writeStringField("path", f.path)
    writeKey(g, f.key)
    g.writeNumberField("serial", f.serial)
    g.writeNumberField("first", f.first)
    g.writeNumberField("pos", f.pos)
    writePrint(g, "fp", f.fingerprint)
    f.tail.foreach(writePrint(g, "tail", _))
    g.writeNumberField("seen", f.seen)
  }

  private def readFile(n: JsonNode): FileOffset = FileOffset(
    path = n.path("path").asText,
    key = key(n),
    serial = n.path("serial").asLong,
    first = n.path("first").asLong,
    pos = n.path("pos").asLong,
    fingerprint = print(n, "fp"),
    tail = optionalPrint(n, "tail"),
    seen = n.path("seen").asLong
  )
}
