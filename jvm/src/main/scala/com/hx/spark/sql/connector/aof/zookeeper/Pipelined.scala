package com.hx.spark.sql.connector.aof.zookeeper

import java.util.concurrent.{ConcurrentHashMap, CountDownLatch, TimeUnit}

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.api.{BackgroundCallback, CuratorEvent}
import org.apache.zookeeper.KeeperException
import org.apache.zookeeper.KeeperException.Code
import org.apache.zookeeper.data.Stat

import com.hx.spark.sql.connector.aof.protocol.ZnodeValues

/**
 * One request a znode, every one sent before any reply is awaited. A driver that asks a thousand
 * znodes one request at a time waits a thousand round trips, and a thousand times for the server
 * to log a write; sent together, they cost about one of each. Curator's background calls retry
 * on a lost connection as its foreground ones do.
 */
private[zookeeper] object Pipelined {

  /** How long replies are awaited: as long as a foreground call may take, retries and all. */
  val TimeoutMs: Long = 30000L

  /**
   * Sends `request` for each of `paths` (with the callback to give Curator) and returns each
   * reply, or None where there is no znode. Throws the first other failure, or a timeout when
   * some did not reply.
   */
  def apply(paths: Iterable[String])(
      request: (String, BackgroundCallback) => Unit): Map[String, Option[CuratorEvent]] = {
    val distinct = paths.toSet
    val replies = new ConcurrentHashMap[String, CuratorEvent]()
    val pending = new CountDownLatch(distinct.size)
    distinct.foreach { path =>
      request(
        path,
        new BackgroundCallback {
          override def processResult(client: CuratorFramework, event: CuratorEvent): Unit = {
            replies.put(path, event)
            pending.countDown()
          }
        })
    }
    if (!pending.await(TimeoutMs, TimeUnit.MILLISECONDS)) {
      throw new KeeperException.OperationTimeoutException()
    }
    replies.asScala.toMap.map { case (path, event) =>
      Code.get(event.getResultCode) match {
        case Code.OK => path -> Some(event)
        case Code.NONODE => path -> None
        case code => throw KeeperException.create(code, path)
      }
    }
  }

  /** The values at `paths` ([[ZnodeValues.get]]): their znodes read together, then any parts. */
  def values(client: CuratorFramework, paths: Iterable[String]): Map[String, Option[Array[Byte]]] =
    apply(paths)((path, done) => client.getData.inBackground(done).forPath(path)).map {
      case (path, head) => path -> head.flatMap(h => ZnodeValues.resolve(client, path, h.getData))
    }

  /** Sets the data of `paths`; the version each then has, None where there is no znode. */
  def set(client: CuratorFramework, values: Map[String, Array[Byte]]): Map[String, Option[Int]] =
    setStats(client, values).map { case (path, stat) => path -> stat.map(_.getVersion) }

  /** [[set]], with each znode's whole stat after. */
  def setStats(
      client: CuratorFramework,
      values: Map[String, Array[Byte]]): Map[String, Option[Stat]] =
    apply(values.keys)((path, done) =>
      client.setData().inBackground(done).forPath(path, values(path))).map { case (path, reply) =>
      path -> reply.map(_.getStat)
    }

  /** Sets each value in one piece, creating its znode and parents where missing. */
  def setOrCreate(client: CuratorFramework, values: Map[String, Array[Byte]]): Unit = {
    val absent = set(client, values).collect { case (path, None) => path }
    apply(absent)((path, done) =>
      client.create().creatingParentsIfNeeded().inBackground(done).forPath(path, values(path)))
  }

  /** Those of `paths` that have a znode. */
  def existing(client: CuratorFramework, paths: Iterable[String]): Set[String] =
    apply(paths)((path, done) => client.checkExists().inBackground(done).forPath(path)).collect {
      case (path, Some(_)) => path
    }.toSet
}
