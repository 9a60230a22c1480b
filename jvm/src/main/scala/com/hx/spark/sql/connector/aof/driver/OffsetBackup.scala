package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.curator.framework.CuratorFramework

import com.hx.spark.sql.connector.aof.protocol.{Gzip, ZkPaths, ZnodeValues}

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
  // The offsets of a few hundred thousand files; a bound, as for any value read from ZooKeeper.
  private val MaxJsonBytes = 1L << 30

  def encode(json: String): Array[Byte] = Gzip.compress(_.write(json.getBytes(UTF_8)))

  def decode(data: Array[Byte]): String = new String(Gzip.decompress(data, MaxJsonBytes), UTF_8)
}
