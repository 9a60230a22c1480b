package com.hx.spark.sql.connector.aof.zookeeper

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}
import java.util.zip.{GZIPInputStream, GZIPOutputStream}

import scala.collection.JavaConverters._

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta, Fingerprint, KnownFile}

/**
 * The driver's request to a node: the files it tracks there. In full, or with `base` as the
 * change from its request `base`, which the node answered last: `known` the files new or
 * changed since, `forgotten` those no longer tracked.
 */
final case class Request(
    id: String,
    known: Seq[KnownFile],
    base: Option[String] = None,
    forgotten: Seq[FileKey] = Nil)

/**
 * A node's answer to the request `id`. In full, or with `base` as the change from its answer to
 * `base`: `files` new or changed since, `gone` those no longer there. `needsFull` when the request
 * was a change from one this node did not answer (it took over from another, or its answer came
 * too late): it asks for the request in full. `unlisted` says why the node could not list its
 * directory, when it could not: its files are then unknown, and `files` is empty. `absent` when
 * the directory does not exist (yet): the node has no files.
 */
final case class Response(
    id: String,
    files: Seq[FileMeta],
    base: Option[String] = None,
    gone: Seq[FileKey] = Nil,
    needsFull: Boolean = false,
    unlisted: Option[String] = None,
    absent: Boolean = false)

/**
 * A request in full and the answer to it in full: what the driver and a node each keep of their
 * last exchange, the base of the next.
 */
final case class Exchange(id: String, known: Seq[KnownFile], files: Seq[FileMeta])

/**
 * Requests and responses as gzip-compressed JSON: a node with ten thousand files fits in a znode
 * (1 MB by default), a larger message goes in parts (see [[ZnodeValues]]). Written field by field
 * through Jackson's streaming generator (a tree of ten thousand files costs more to build than to
 * write), read through its tree model, and sealed with the run's key (see [[MessageSeal]]).
 */
object Messages {
  private val mapper = new ObjectMapper()
  // Bounds what a compressed message may expand to: a node's two hundred thousand files or so.
  private val MaxJsonBytes = 64L << 20

  def encode(request: Request, runKey: String): Array[Byte] = MessageSeal.seal(
    gzip { g =>
      g.writeStringField("id", request.id)
      request.base.foreach(g.writeStringField("base", _))
      writeKeys(g, "forgotten", request.forgotten)
      g.writeArrayFieldStart("known")
      request.known.foreach { k =>
        g.writeStartObject()
        writeKey(g, k.key)
        g.writeNumberField("floor", k.floor)
        writePrint(g, "fp", k.fingerprint)
        k.tail.foreach(writePrint(g, "tail", _))
        g.writeEndObject()
      }
      g.writeEndArray()
    },
    runKey
  )

  def decodeRequest(bytes: Array[Byte], runKey: String): Request = {
    val root = gunzip(MessageSeal.open(bytes, runKey))
    Request(
      root.path("id").asText,
      root.path("known").elements().asScala.toVector.map { n =>
        KnownFile(key(n), n.path("floor").asLong, print(n, "fp"), optionalPrint(n, "tail"))
      },
      base(root),
      keys(root, "forgotten")
    )
  }

  def encode(response: Response, runKey: String): Array[Byte] = MessageSeal.seal(
    gzip { g =>
      g.writeStringField("id", response.id)
      response.base.foreach(g.writeStringField("base", _))
      writeKeys(g, "gone", response.gone)
      if (response.needsFull) g.writeBooleanField("needsFull", true)
      response.unlisted.foreach(g.writeStringField("unlisted", _))
      if (response.absent) g.writeBooleanField("absent", true)
      g.writeArrayFieldStart("files")
      response.files.foreach { f =>
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
        f.unreadable.foreach(g.writeStringField("unreadable", _))
        g.writeEndObject()
      }
      g.writeEndArray()
    },
    runKey
  )

  def decodeResponse(bytes: Array[Byte], runKey: String): Response = {
    val root = gunzip(MessageSeal.open(bytes, runKey))
    Response(
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
            text(n, "unreadable")
          )
        },
      base(root),
      keys(root, "gone"),
      root.path("needsFull").asBoolean(false),
      text(root, "unlisted"),
      root.path("absent").asBoolean(false)
    )
  }

  private def writeKey(g: JsonGenerator, key: FileKey): Unit = {
    g.writeNumberField("dev", key.dev)
    g.writeNumberField("ino", key.ino)
  }
  private def key(n: JsonNode): FileKey = FileKey(n.path("dev").asLong, n.path("ino").asLong)

  private def writeKeys(g: JsonGenerator, name: String, keys: Seq[FileKey]): Unit =
    if (keys.nonEmpty) {
      g.writeArrayFieldStart(name)
      keys.foreach { k =>
        g.writeStartObject()
        writeKey(g, k)
        g.writeEndObject()
      }
      g.writeEndArray()
    }
  private def keys(root: JsonNode, name: String): Seq[FileKey] =
    root.path(name).elements().asScala.map(key).toVector

  private def base(root: JsonNode): Option[String] = text(root, "base")

  private def text(n: JsonNode, name: String): Option[String] =
    if (n.has(name)) Some(n.path(name).asText) else None

  private def writePrint(g: JsonGenerator, name: String, f: Fingerprint): Unit = {
    g.writeNumberField(s"${name}Length", f.length)
    g.writeStringField(s"${name}Md5", f.md5)
  }
  private def print(n: JsonNode, name: String): Fingerprint =
    Fingerprint(n.path(s"${name}Length").asLong, n.path(s"${name}Md5").asText)

  private def optionalPrint(n: JsonNode, name: String): Option[Fingerprint] =
    if (n.has(s"${name}Length")) Some(print(n, name)) else None

  /** One JSON object, its fields written by `fields`, compressed. */
  private def gzip(fields: JsonGenerator => Unit): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val g = mapper.getFactory.createGenerator(new GZIPOutputStream(bytes))
    try {
      g.writeStartObject()
      fields(g)
      g.writeEndObject()
    } finally g.close()
    bytes.toByteArray
  }

  private def gunzip(bytes: Array[Byte]): JsonNode = {
    val in = new GZIPInputStream(new ByteArrayInputStream(bytes))
    val json = new ByteArrayOutputStream()
    val buffer = new Array[Byte](64 * 1024)
    var n = in.read(buffer)
    while (n >= 0) {
      json.write(buffer, 0, n)
      require(json.size() <= MaxJsonBytes, s"aof: message expands beyond $MaxJsonBytes bytes")
      n = in.read(buffer)
    }
    mapper.readTree(json.toByteArray)
  }
}
