package com.hx.spark.sql.connector.aof.files.identity

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.JsonNode

/**
 * File keys and fingerprints as JSON fields, one spelling for the offsets and the messages:
 * `dev` and `ino`; `<name>Length` and `<name>Md5`.
 */
object FileJson {
  def writeKey(g: JsonGenerator, key: FileKey): Unit = {
    g.writeNumberField("dev", key.dev)
    g.writeNumberField("ino", key.ino)
  }

  def key(n: JsonNode): FileKey = FileKey(n.path("dev").asLong, n.path("ino").asLong)

  def writePrint(g: JsonGenerator, name: String, f: Fingerprint): Unit = {
    g.writeNumberField(s"${name}Length", f.length)
    g.writeStringField(s"${name}Md5", f.md5)
  }

  def print(n: JsonNode, name: String): Fingerprint =
    Fingerprint(n.path(s"${name}Length").asLong, n.path(s"${name}Md5").asText)

  def optionalPrint(n: JsonNode, name: String): Option[Fingerprint] =
    if (n.has(s"${name}Length")) Some(print(n, name)) else None
}
