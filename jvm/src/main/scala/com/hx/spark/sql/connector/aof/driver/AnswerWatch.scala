package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.mutable
import scala.util.{Failure, Success, Try}

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{
  PathChildrenCache, PathChildrenCacheEvent, PathChildrenCacheListener
}
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{Answer, Messages, ZkPaths, ZnodeValues}
import com.hx.spark.sql.connector.aof.zookeeper.ChildrenCaches

/**
 * The hosts' answers, from a watch: which hosts wrote since they were last read, and each
 * host's latest answer, each version decoded once. So a trigger reads only the hosts that
 * wrote, whatever the fleet's size. The same for the hosts' counts of changes
 * ([[ZkPaths.changed]]): which hosts raised theirs, and to what.
 */
final class AnswerWatch(client: CuratorFramework, paths: ZkPaths, runKey: String) {
  private val log = LoggerFactory.getLogger(getClass)
  private val cache = ChildrenCaches(client, paths.answers, withData = true)
  private val counts = ChildrenCaches(client, paths.changes, withData = true)
  private val changed = new Object
  // Hosts whose answer changed since it was last read, and those whose count of changes rose,
  // with each host's count; used under `changed`'s lock.
  private val fresh = mutable.Set.empty[String]
  private val raised = mutable.Set.empty[String]
  private val changeCounts = mutable.Map.empty[String, Long]
  // Each host's last answer decoded, by its version.
  private val lastDecoded = mutable.Map.empty[String, (Long, Option[Answer])]

  /** Not waited for: the run is new, so it starts empty; what comes later wakes a wait. */
  def start(): Unit = {
    cache.getListenable.addListener(new PathChildrenCacheListener {
      override def childEvent(c: CuratorFramework, e: PathChildrenCacheEvent): Unit =
        changed.synchronized {
          Option(e.getData).foreach(d => fresh += host(d.getPath))
          changed.notifyAll()
        }
    })
    // A count is a number and no more: one anybody wrote makes a host look, and no harm else.
    // Every write is a change: a host's next endpoint counts from 0 again, and may write a
    // number its last one wrote.
    counts.getListenable.addListener(new PathChildrenCacheListener {
      override def childEvent(c: CuratorFramework, e: PathChildrenCacheEvent): Unit =
        changed.synchronized {
          for {
            d <- Option(e.getData)
            count <- Option(d.getData).flatMap(b => Try(new String(b, UTF_8).trim.toLong).toOption)
          } {
            changeCounts(host(d.getPath)) = count
            raised += host(d.getPath)
          }
          changed.notifyAll()
        }
    })
    cache.start(PathChildrenCache.StartMode.NORMAL)
    counts.start(PathChildrenCache.StartMode.NORMAL)
  }

  def close(): Unit = {
    ChildrenCaches.close(counts)
    ChildrenCaches.close(cache)
  }

  private def host(path: String): String = ZkPaths.decode(path.substring(path.lastIndexOf('/') + 1))

  /** The hosts whose count of changes rose since the last call, with their counts. */
  def raisedCounts(): Map[String, Long] = changed.synchronized {
    val counts = raised.map(h => h -> changeCounts(h)).toMap
    raised.clear()
    counts
  }

  /** The host's count of changes as last heard; 0 before any. */
  def changeCount(host: String): Long = changed.synchronized(changeCounts.getOrElse(host, 0L))

  /** The hosts that wrote since the last call. */
  def wrote(): List[String] = changed.synchronized {
    val hosts = fresh.toList
    fresh.clear()
    hosts
  }

  /**
   * Returns once some host wrote or raised its count (at once if one did since the last
   * [[wrote]] or [[raisedCounts]]), or after `ms`.
   */
  def await(ms: Long): Unit = {
    val deadline = System.nanoTime() + ms * 1000000L
    changed.synchronized {
      while (fresh.isEmpty && raised.isEmpty && System.nanoTime() < deadline) {
        changed.wait(math.max(1L, (deadline - System.nanoTime()) / 1000000L))
      }
    }
  }

  /**
   * The host's latest answer. Each version is decoded once: with ten thousand files, decoding
   * an answer again costs as much as the answer awaited.
   */
  def latest(host: String): Option[Answer] =
    Option(cache.getCurrentData(paths.answer(host))).flatMap { d =>
      val version = d.getStat.getMzxid
      lastDecoded.get(host) match {
        case Some((v, answer)) if v == version => answer
        case _ =>
          // Whatever else wrote there, an answer that does not decode is no answer. One whose
          // parts are gone is none either: it was replaced, and its next version is read next.
          val value = Try(ZnodeValues.resolve(client, d.getPath, d.getData))
          val answer = value.map(_.map(Messages.decodeAnswer(_, runKey))) match {
            case Success(r) => r
            case Failure(e) =>
              log.warn(s"aof: unreadable answer from $host, taken as no answer: $e")
              None
          }
          lastDecoded(host) = version -> answer
          answer
      }
    }
}
