package com.hx.spark.sql.connector.aof.offset

import java.io.StringWriter

import scala.collection.JavaConverters._

import com.fasterxml.jackson.core.{JsonGenerator, JsonToken}
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import com.hx.spark.sql.connector.aof.files.identity.FileJson.{
  key, optionalPrint, print, writeKey, writePrint
}

/**
 * Offsets as JSON. Written field by field through Jackson's streaming generator rather than by
 * reflection, so that the format is explicit, sorted (equal offsets give equal text) and
 * independent of the Scala module version each Spark release ships.
 *
 * Version 1 is an offset whole. Version 2 names the snapshot it is on and holds, per host that
 * changed since, the files new or moved on and the ids of those gone (`goneHosts` for a host).
 * A host's `retired` files are written whole wherever the host is (absent: none), in both.
 */
object OffsetJson {
  val Whole: Int = 1
  val OnSnapshot: Int = 2
  private val mapper = new ObjectMapper()

  /** For offsets that can only be whole: the backup, a snapshot. */
  val NoSnapshots: String => OffsetSnapshot = id =>
    throw new IllegalStateException(s"aof: an offset on snapshot $id where a whole one was due")

  def write(offset: AofOffset): String = generate { g =>
    offset.plannedAtMs.foreach(g.writeNumberField("plannedAt", _))
    offset.base match {
      case None =>
        g.writeNumberField("version", Whole)
        writeHosts(
          g,
          offset.hosts.map { case (h, o) =>
            h -> HostChanges(o.nextSerial, o.files, Nil, o.retired)
          })
      case Some(base) =>
        val (changed, goneHosts) = offset.changes
        g.writeNumberField("version", OnSnapshot)
        g.writeStringField("snapshot", base.id)
        writeHosts(g, changed)
        if (goneHosts.nonEmpty) writeIds(g, "goneHosts", goneHosts)
    }
  }

  /** Reads an offset; `snapshot` gives the snapshot a version 2 offset names. */
  def read(json: String, snapshot: String => OffsetSnapshot): AofOffset = {
    val root = mapper.readTree(json)
    val version = root.path("version").asInt(-1)
    val hosts = root
      .path("hosts")
      .fields()
      .asScala
      .map { e =>
        val h = e.getValue
        val files = h.path("files").fields().asScala.map(f => f.getKey -> readFile(f.getValue))
        val gone = h.path("gone").elements().asScala.map(_.asText).toSeq
        val retired = h.path("retired").fields().asScala.map { r =>
          val n = r.getValue
          r.getKey -> RetiredFile(readFile(n), n.path("asked").asInt, n.path("lastAsk").asText)
        }
        e.getKey -> HostChanges(h.path("nextSerial").asLong, files.toMap, gone, retired.toMap)
      }
      .toMap
    val plannedAt = if (root.has("plannedAt")) Some(root.path("plannedAt").asLong) else None
    version match {
      case Whole =>
        AofOffset(
          hosts.map { case (h, c) => h -> HostOffsets(c.nextSerial, c.files, c.retired) },
          plannedAtMs = plannedAt)
      case OnSnapshot =>
        val base = snapshot(root.path("snapshot").asText)
        val goneHosts = root.path("goneHosts").elements().asScala.map(_.asText).toSeq
        AofOffset(OffsetChanges.applied(base.hosts, hosts, goneHosts), Some(base), plannedAt)
      case _ =>
        throw new IllegalStateException(
          s"Unsupported aof offset version $version in checkpoint (this build reads $Whole and " +
            s"$OnSnapshot): use the connector version that wrote the checkpoint, or start a new " +
            "checkpoint.")
    }
  }

  /** The snapshot an offset is on, read without reading its files. */
  def snapshotOf(json: String): Option[String] = {
    val parser = mapper.getFactory.createParser(json)
    try {
      parser.nextToken() // the object's start
      var found = Option.empty[String]
      while (found.isEmpty && parser.nextToken() == JsonToken.FIELD_NAME) {
        val name = parser.currentName
        parser.nextToken()
        if (name == "snapshot") found = Some(parser.getText) else parser.skipChildren()
      }
      found
    } finally parser.close()
  }

  /** One JSON object to `g`, its fields written by `fields`; `g` is closed after. */
  def writeObject(g: JsonGenerator)(fields: JsonGenerator => Unit): Unit =
    try {
      g.writeStartObject()
      fields(g)
      g.writeEndObject()
    } finally g.close()

  private def generate(fields: JsonGenerator => Unit): String = {
    val out = new StringWriter()
    writeObject(mapper.getFactory.createGenerator(out))(fields)
    out.toString
  }

  private def writeHosts(g: JsonGenerator, hosts: Map[String, HostChanges]): Unit = {
    g.writeObjectFieldStart("hosts")
    hosts.toSeq.sortBy(_._1).foreach { case (host, h) =>
      g.writeObjectFieldStart(host)
      g.writeNumberField("nextSerial", h.nextSerial)
      g.writeObjectFieldStart("files")
      h.files.toSeq.sortBy(_._1).foreach { case (id, f) =>
        g.writeObjectFieldStart(id)
        writeFile(g, f)
        g.writeEndObject()
      }
      g.writeEndObject()
      if (h.gone.nonEmpty) writeIds(g, "gone", h.gone)
      if (h.retired.nonEmpty) {
        g.writeObjectFieldStart("retired")
        h.retired.toSeq.sortBy(_._1).foreach { case (id, r) =>
          g.writeObjectFieldStart(id)
          writeFile(g, r.file)
          g.writeNumberField("asked", r.asked)
          g.writeStringField("lastAsk", r.lastAsk)
          g.writeEndObject()
        }
        g.writeEndObject()
      }
      g.writeEndObject()
    }
    g.writeEndObject()
  }

  private def writeIds(g: JsonGenerator, name: String, ids: Seq[String]): Unit = {
    g.writeArrayFieldStart(name)
    ids.foreach(g.writeString)
    g.writeEndArray()
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
    if (f.skipped) g.writeBooleanField("skipped", true)
    f.continues.foreach { t =>
      g.writeStringField("continuesFile", t.fileId)
      g.writeNumberField("continuesFrom", t.from)
    }
  }

  private def readFile(n: JsonNode): FileOffset = FileOffset(
    path = n.path("path").asText,
    key = key(n),
    serial = n.path("serial").asLong,
    first = n.path("first").asLong,
    pos = n.path("pos").asLong,
    fingerprint = print(n, "fp"),
    tail = optionalPrint(n, "tail"),
    seen = n.path("seen").asLong,
    skipped = n.path("skipped").asBoolean(false),
    continues =
      if (n.has("continuesFile"))
        Some(OpenTail(n.path("continuesFile").asText, n.path("continuesFrom").asLong))
      else None
  )
}
