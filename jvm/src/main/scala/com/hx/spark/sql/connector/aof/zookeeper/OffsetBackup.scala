package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.KeeperException

/** The committed offsets kept in ZooKeeper, for a query that starts on a new checkpoint. */
final class OffsetBackup(client: CuratorFramework, metaStore: String) {
  private val path = ZkPaths(metaStore, "").offsets

  def read(): Option[String] =
    try Some(new String(client.getData.forPath(path), UTF_8))
    catch { case _: KeeperException.NoNodeException => None }

  def write(json: String): Unit = ZkClients.put(client, path, json.getBytes(UTF_8))
}
