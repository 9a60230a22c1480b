package com.hx.spark.sql.connector.aof.zookeeper

import java.util.concurrent.TimeUnit

import org.apache.curator.framework.{CuratorFramework, CuratorFrameworkFactory}
import org.apache.curator.retry.ExponentialBackoffRetry
import org.apache.zookeeper.KeeperException

object ZkClients {
  private val ConnectWaitSeconds = 20

  /** A started client, connected, or a clear error naming the option to check. */
  def open(connectString: String): CuratorFramework = {
    val client = CuratorFrameworkFactory
      .builder()
      .connectString(connectString)
      .retryPolicy(new ExponentialBackoffRetry(100, 10, 2000))
      .sessionTimeoutMs(30000)
      .connectionTimeoutMs(10000)
      .defaultData(Array.emptyByteArray) // not this host's address in every parent znode
      .build()
    client.start()
    if (!client.blockUntilConnected(ConnectWaitSeconds, TimeUnit.SECONDS)) {
      client.close()
      throw new IllegalStateException(
        s"aof: cannot reach ZooKeeper at '$connectString' within $ConnectWaitSeconds s; check " +
          "the option 'zookeeper.address', or leave it unset to use the embedded server.")
    }
    client
  }

  /** Writes `data` at `path`, creating it and its parents when missing. */
  def put(client: CuratorFramework, path: String, data: Array[Byte]): Unit =
    try client.setData().forPath(path, data)
    catch {
      case _: KeeperException.NoNodeException =>
        try client.create().creatingParentsIfNeeded().forPath(path, data)
        catch {
          case _: KeeperException.NodeExistsException => client.setData().forPath(path, data)
        }
    }

  def ensure(client: CuratorFramework, path: String): Unit =
    try client.create().creatingParentsIfNeeded().forPath(path)
    catch { case _: KeeperException.NodeExistsException => () }
}
