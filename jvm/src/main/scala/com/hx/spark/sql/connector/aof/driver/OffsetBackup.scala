package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{KeeperException, ZKUtil}
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{Gzip, ZkPaths, ZnodeValues}

/**
 * The committed offsets kept in ZooKeeper, for a query that starts on a new checkpoint. Stored
 * gzip-compressed: the offsets of ten thousand files are a few MB of JSON, a znode holds 1 MB
 * (more go in parts, see [[ZnodeValues]]).
 *
 * A backup is trusted (`resume.from.backup`) only where ZooKeeper's ACLs let no one but the
 * query's own login write it (design §13): an open store's could be anyone's, and would skip
 * lines and remove files as its offsets say. So `resume.from.backup` needs a login, and a backup
 * that anyone could write before the login restricted it is removed ([[OffsetBackup.distrust]]).
 */
final class OffsetBackup(client: CuratorFramework, metaStore: String) {
  private val path = ZkPaths(metaStore, "").offsets

  def read(): Option[String] = ZnodeValues.get(client, path).map(OffsetBackup.decode)

  def write(json: String): Unit = ZnodeValues.put(client, path, OffsetBackup.encode(json))
}

object OffsetBackup {
  private val log = LoggerFactory.getLogger(classOf[OffsetBackup])

  /** Removes the backup of `metaStore`, which anyone could write until now; said. */
  def distrust(client: CuratorFramework, metaStore: String): Unit = {
    val path = ZkPaths(metaStore, "").offsets
    log.warn(
      s"aof: the offset backup $path could be written by anyone until this query's login " +
        "restricted it: it is not trusted, and was removed. The query starts from its " +
        "checkpoint, or where starting.offsets says.")
    try ZKUtil.deleteRecursive(client.getZookeeperClient.getZooKeeper, path)
    catch { case _: KeeperException.NoNodeException => () }
  }

  // The offsets of a few hundred thousand files; a bound, as for any value read from ZooKeeper.
  private val MaxJsonBytes = 1L << 30

  def encode(json: String): Array[Byte] = Gzip.compress(_.write(json.getBytes(UTF_8)))

  def decode(data: Array[Byte]): String = new String(Gzip.decompress(data, MaxJsonBytes), UTF_8)
}
