package com.hx.spark.sql.connector.aof.protocol

import java.io.ByteArrayInputStream
import java.util.zip.GZIPInputStream

import scala.collection.JavaConverters._

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopy
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.files.identity.FileJson.{
  key, optionalPrint, print, writeKey, writePrint
}
import com.hx.spark.sql.connector.aof.offset.OffsetJson

/**
 * Requests and answers as gzip-compressed JSON: a node with ten thousand files fits in a znode
 * (1 MB by default), a larger message goes in parts (see [[ZnodeValues]]). Written field by field
 * through Jackson's streaming generator (a tree of ten thousand files costs more to build than to
 * write), read through its tree model, and sealed with the run's key (see [[MessageSeal]]).
 */
object Messages {
  private val mapper = new ObjectMapper()

  def encode(request: Request, runKey: String): Array[Byte] = MessageSeal.seal(
    gzip { g =>
      g.writeStringField("id", request.id)
      if (request.seq > 0) g.writeNumberField("seq", request.seq)
      request.base.foreach(g.writeStringField("base", _))
      writeKeys(g, "forgotten", request.forgotten)
      writeKeys(g, "remove", request.remove)
      g.writeArrayFieldStart("known")
      request.known.foreach { k =>
        g.writeStartObject()
        writeKnown(g, k)
        g.writeEndObject()
      }
      g.writeEndArray()
      array(g, "retired", request.retired.toSeq.sortBy(_._1)) { case (id, k) =>
        g.writeStartObject()
        g.writeStringField("id", id)
        writeKnown(g, k)
        g.writeEndObject()
      }
    },
    runKey
  )

  def decodeRequest(bytes: Array[Byte], runKey: String): Request = {
    val root = gunzip(MessageSeal.open(bytes, runKey))
    Request(
      root.path("id").asText,
      root.path("known").elements().asScala.toVector.map(known),
      base(root),
      keys(root, "forgotten"),
      root.path("retired").elements().asScala.map(n => n.path("id").asText -> known(n)).toMap,
      keys(root, "remove"),
      root.path("seq").asLong(0L)
    )
  }

  private def writeKnown(g: JsonGenerator, k: KnownFile): Unit = {
    writeKey(g, k.key)
    g.writeNumberField("floor", k.floor)
    writePrint(g, "fp", k.fingerprint)
    k.tail.foreach(writePrint(g, "tail", _))
  }

  private def known(n: JsonNode): KnownFile =
    KnownFile(key(n), n.path("floor").asLong, print(n, "fp"), optionalPrint(n, "tail"))

  def encode(answer: Answer, runKey: String): Array[Byte] = MessageSeal.seal(
    gzip { g =>
      g.writeStringField("id", answer.id)
      answer.base.foreach(g.writeStringField("base", _))
      if (answer.name.nonEmpty) g.writeStringField("answer", answer.name)
      if (answer.look > 0) g.writeNumberField("look", answer.look)
      if (answer.pulled > 0) g.writeNumberField("pulled", answer.pulled)
      if (answer.seq > 0) g.writeNumberField("seq", answer.seq)
      if (answer.changes > 0) g.writeNumberField("changes", answer.changes)
      writeKeys(g, "gone", answer.gone)
      writeKeys(g, "removed", answer.removed)
      if (answer.needsFull) g.writeBooleanField("needsFull", true)
      answer.unlisted.foreach(g.writeStringField("unlisted", _))
      if (answer.absent) g.writeBooleanField("absent", true)
      if (answer.ignored > 0) g.writeNumberField("ignored", answer.ignored)
      if (answer.notRemoved > 0) g.writeNumberField("notRemoved", answer.notRemoved)
      array(g, "closest", answer.closest)(g.writeString)
      array(g, "unmatchedCopies", answer.unmatchedCopies.toSeq.sortBy(_._1)) { case (id, c) =>
        g.writeStartObject()
        g.writeStringField("id", id)
        g.writeStringField("path", c.path)
        g.writeNumberField("size", c.size)
        g.writeEndObject()
      }
      array(g, "retired", answer.retired)(g.writeString)
      g.writeArrayFieldStart("files")
      answer.files.foreach { f =>
        g.writeStartObject()
        g.writeStringField("path", f.path)
        writeKey(g, f.key)
        g.writeNumberField("size", f.size)
        g.writeNumberField("lineEnd", f.lineEnd)
        writePrint(g, "fp", f.fingerprint)
        f.probe.foreach(writePrint(g, "probe", _))
        f.floor.foreach(g.writeNumberField("floor", _))
        f.tailAtFloor.foreach(writePrint(g, "tailAtFloor", _))
        f.tailAtLineEnd.foreach(writePrint(g, "tailAtLineEnd", _))
        f.copyOf.foreach { k =>
          g.writeNumberField("copyOfDev", k.dev)
          g.writeNumberField("copyOfIno", k.ino)
        }
        f.copyOfRetired.foreach(g.writeStringField("copyOfRetired", _))
        f.continues.foreach { k =>
          g.writeNumberField("continuesDev", k.dev)
          g.writeNumberField("continuesIno", k.ino)
        }
        f.unreadable.foreach(g.writeStringField("unreadable", _))
        if (f.ignored) g.writeBooleanField("ignored", true)
        if (f.modifiedMs > 0) g.writeNumberField("modified", f.modifiedMs)
        if (f.start > 0) g.writeNumberField("start", f.start)
        array(g, "cuts", f.cuts)(g.writeNumber)
        g.writeEndObject()
      }
      g.writeEndArray()
    },
    runKey
  )

  def decodeAnswer(bytes: Array[Byte], runKey: String): Answer = {
    val root = gunzip(MessageSeal.open(bytes, runKey))
    Answer(
      root.path("id").asText,
      root
        .path("files")
        .elements()
        .asScala
        .toVector
        .map { n =>
          FileMeta(
            n.path("path").asText,
            key(n),
            n.path("size").asLong,
            n.path("lineEnd").asLong,
            print(n, "fp"),
            optionalPrint(n, "probe"),
            if (n.has("floor")) Some(n.path("floor").asLong) else None,
            optionalPrint(n, "tailAtFloor"),
            optionalPrint(n, "tailAtLineEnd"),
            if (n.has("copyOfIno"))
              Some(FileKey(n.path("copyOfDev").asLong, n.path("copyOfIno").asLong))
            else None,
            text(n, "unreadable"),
            n.path("cuts").elements().asScala.map(_.asLong).toVector,
            text(n, "copyOfRetired"),
            n.path("ignored").asBoolean(false),
            continues =
              if (n.has("continuesIno"))
                Some(FileKey(n.path("continuesDev").asLong, n.path("continuesIno").asLong))
              else None,
            modifiedMs = n.path("modified").asLong(0L),
            start = n.path("start").asLong(0L)
          )
        },
      base(root),
      keys(root, "gone"),
      root.path("needsFull").asBoolean(false),
      text(root, "unlisted"),
      root.path("absent").asBoolean(false),
      root.path("retired").elements().asScala.map(_.asText).toVector,
      root.path("ignored").asInt(0),
      keys(root, "removed"),
      root.path("notRemoved").asInt(0),
      root.path("closest").elements().asScala.map(_.asText).toVector,
      root
        .path("unmatchedCopies")
        .elements()
        .asScala
        .map { n =>
          n.path("id").asText -> UnmatchedCopy(n.path("path").asText, n.path("size").asLong)
        }
        .toMap,
      text(root, "answer").getOrElse(""),
      root.path("look").asLong(0L),
      root.path("pulled").asLong(0L),
      root.path("seq").asLong(0L),
      root.path("changes").asLong(0L)
    )
  }

  private def writeKeys(g: JsonGenerator, name: String, keys: Seq[FileKey]): Unit =
    array(g, name, keys) { k =>
      g.writeStartObject()
      writeKey(g, k)
      g.writeEndObject()
    }

  /** The field `name`, an array of `items` each written by `write`; none when there are none. */
  private def array[T](g: JsonGenerator, name: String, items: Seq[T])(write: T => Unit): Unit =
    if (items.nonEmpty) {
      g.writeArrayFieldStart(name)
      items.foreach(write)
      g.writeEndArray()
    }
  private def keys(root: JsonNode, name: String): Seq[FileKey] =
    root.path(name).elements().asScala.map(key).toVector

  private def base(root: JsonNode): Option[String] = text(root, "base")

  private def text(n: JsonNode, name: String): Option[String] =
    if (n.has(name)) Some(n.path(name).asText) else None

  /** One JSON object, its fields written by `fields`, compressed. */
  private def gzip(fields: JsonGenerator => Unit): Array[Byte] =
    Gzip.compress(out => OffsetJson.writeObject(mapper.getFactory.createGenerator(out))(fields))

  // Parsed as it is decompressed, and not bounded: a message is opened only once its seal (an
  // HMAC under the run's key) holds, so only a holder of the key could send a zip bomb, while a
  // node's answer is as large as its files make it (a bound here once stopped a node at about
  // 200,000 files).
  private def gunzip(bytes: Array[Byte]): JsonNode =
    mapper.readTree(new GZIPInputStream(new ByteArrayInputStream(bytes)))
}
