package com.hx.spark.sql.connector.aof.zookeeper

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.zip.{GZIPInputStream, GZIPOutputStream}

import org.apache.curator.framework.CuratorFramework

/**
 * The committed offsets kept in ZooKeeper, for a query that starts on a new checkpoint. Stored
 * gzip-compressed: the offsets of ten thousand files are a few MB of JSON, a znode holds 1 MB
 * (more go in parts, see [[ZnodeValues]]).
 */
final class OffsetBackup(client: CuratorFramework, metaStore: String) {
  private val path = ZkPaths(metaStore, "").offsets

  def read(): Option[String] = ZnodeValues.get(client, path).map(OffsetBackup.decode)

  def write(json: String): Unit = ZnodeValues.put(client, path, OffsetBackup.encode(json))
}

object OffsetBackup {
  def encode(json: String): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new GZIPOutputStream(bytes)
    try out.write(json.getBytes(UTF_8))
    finally out.close()
    bytes.toByteArray
  }

  /** Reads both forms: gzip, and the plain JSON that earlier versions wrote. */
  def decode(data: Array[Byte]): String =
    if (data.length > 1 && data(0) == 0x1f.toByte && data(1) == 0x8b.toByte) {
      new String(new GZIPInputStream(new ByteArrayInputStream(data)).readAllBytes(), UTF_8)
    } else new String(data, UTF_8)
}
