package com.hx.spark.sql.connector.aof.zookeeper

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}
import java.util.zip.{GZIPInputStream, GZIPOutputStream}

import scala.collection.JavaConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta, Fingerprint, KnownFile}

/** The driver's request to a node. */
final case class Request(id: String, known: Seq[KnownFile])

/** A node's answer to the request `id`. */
final case class Response(id: String, files: Seq[FileMeta])

/**
 * Requests and responses as gzip-compressed JSON: a node with ten thousand files still fits in a
 * znode (1 MB by default). Written through Jackson's tree model to keep the format explicit, and
 * sealed with the run's key (see [[MessageSeal]]).
 */
object Messages {
  private val mapper = new ObjectMapper()
  // A znode holds 1 MB; this bounds what a small compressed message may expand to.
  private val MaxJsonBytes = 64L << 20

  def encode(request: Request, runKey: String): Array[Byte] = {
    val root = mapper.createObjectNode().put("id", request.id)
    val known = root.putArray("known")
    request.known.foreach { k =>
      val n = known.addObject()
      putKey(n, k.key)
      n.put("floor", k.floor)
      putPrint(n, "fp", k.fingerprint)
      k.tail.foreach(putPrint(n, "tail", _))
    }
    MessageSeal.seal(gzip(root), runKey)
  }

  def decodeRequest(bytes: Array[Byte], runKey: String): Request = {
    val root = gunzip(MessageSeal.open(bytes, runKey))
    Request(
      root.path("id").asText,
      root.path("known").elements().asScala.toVector.map { n =>
        KnownFile(key(n), n.path("floor").asLong, print(n, "fp"), optionalPrint(n, "tail"))
      }
    )
  }

  def encode(response: Response, runKey: String): Array[Byte] = {
    val root = mapper.createObjectNode().put("id", response.id)
    val files = root.putArray("files")
    response.files.foreach { f =>
      val n = files.addObject().put("path", f.path)
      putKey(n, f.key)
      n.put("size", f.size).put("lineEnd", f.lineEnd)
      putPrint(n, "fp", f.fingerprint)
      f.probe.foreach(putPrint(n, "probe", _))
      n.put("floor", f.floor)
      f.tailAtFloor.foreach(putPrint(n, "tailAtFloor", _))
      f.tailAtLineEnd.foreach(putPrint(n, "tailAtLineEnd", _))
      f.copyOf.foreach(k => n.put("copyOfDev", k.dev).put("copyOfIno", k.ino))
    }
    MessageSeal.seal(gzip(root), runKey)
  }

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
            n.path("floor").asLong,
            optionalPrint(n, "tailAtFloor"),
            optionalPrint(n, "tailAtLineEnd"),
            if (n.has("copyOfIno"))
              Some(FileKey(n.path("copyOfDev").asLong, n.path("copyOfIno").asLong))
            else None
          )
        }
    )
  }

  private def putKey(n: ObjectNode, key: FileKey): Unit = n.put("dev", key.dev).put("ino", key.ino)
  private def key(n: JsonNode): FileKey = FileKey(n.path("dev").asLong, n.path("ino").asLong)

  private def putPrint(n: ObjectNode, name: String, f: Fingerprint): Unit =
    n.put(s"${name}Length", f.length).put(s"${name}Md5", f.md5)
  private def print(n: JsonNode, name: String): Fingerprint =
    Fingerprint(n.path(s"${name}Length").asLong, n.path(s"${name}Md5").asText)

  private def optionalPrint(n: JsonNode, name: String): Option[Fingerprint] =
    if (n.has(s"${name}Length")) Some(print(n, name)) else None

  private def gzip(root: JsonNode): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new GZIPOutputStream(bytes)
    try mapper.writeValue(out, root)
    finally out.close()
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
