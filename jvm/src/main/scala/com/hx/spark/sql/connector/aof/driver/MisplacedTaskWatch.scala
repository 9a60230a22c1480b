package com.hx.spark.sql.connector.aof.driver

import java.util.concurrent.{Executors, ScheduledExecutorService, TimeUnit}

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{
  ChildData, PathChildrenCache, PathChildrenCacheEvent, PathChildrenCacheListener
}
import org.apache.zookeeper.KeeperException
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{MisplacedTasks, ZkPaths}
import com.hx.spark.sql.connector.aof.zookeeper.ChildrenCaches

/**
 * Kills each read task of the run reported as misplaced ([[MisplacedTasks]]) as it comes, and
 * again every `repeatMs` while its report stays: a kill is a message to the executor, and a task
 * whose kill was lost would otherwise fail when it stops waiting.
 */
final class MisplacedTaskWatch(
    client: CuratorFramework,
    paths: ZkPaths,
    runKey: String,
    repeatMs: Long = MisplacedTaskWatch.RepeatMs) {
  private val log = LoggerFactory.getLogger(getClass)
  private val cache = ChildrenCaches(client, paths.misplaced, withData = true)
  private val repeats: ScheduledExecutorService = Executors.newSingleThreadScheduledExecutor { r =>
    val thread = new Thread(r, "aof-misplaced-tasks")
    thread.setDaemon(true)
    thread
  }

  /** @param kill kills a task attempt with the reason given */
  def start(kill: (Long, String) => Unit): Unit = {
    cache.getListenable.addListener(new PathChildrenCacheListener {
      override def childEvent(c: CuratorFramework, e: PathChildrenCacheEvent): Unit =
        if (e.getType == PathChildrenCacheEvent.Type.CHILD_ADDED) {
          decode(e.getData) match {
            case Some((id, reason)) =>
              log.info(s"aof: task attempt $id ran on the wrong host; killing it: $reason")
              kill(id, reason)
            case None => log.warn(s"aof: ignoring ${e.getData.getPath}: not sealed by this run")
          }
        }
    })
    cache.start(PathChildrenCache.StartMode.NORMAL)
    // Only reports seen at the previous tick too: one just added was killed by its event. Read
    // from ZooKeeper itself, not the cache: a report the cache missed is killed all the same.
    var previous = Set.empty[String]
    repeats.scheduleWithFixedDelay(
      () =>
        // A tick that throws would end the repeats.
        try {
          val reports = reportsNow()
          reports.filter(r => previous(r._1)).flatMap(r => decode(r._2)).foreach(kill.tupled)
          previous = reports.map(_._1).toSet
        } catch {
          case e: Exception => log.warn(s"aof: could not repeat the kill of misplaced tasks: $e")
        },
      repeatMs,
      repeatMs,
      TimeUnit.MILLISECONDS
    )
  }

  /** The reports in ZooKeeper now, by path; one removed while they are read is left out. */
  private def reportsNow(): Seq[(String, Array[Byte])] = {
    val names =
      try client.getChildren.forPath(paths.misplaced).asScala.toSeq
      catch { case _: KeeperException.NoNodeException => Nil }
    names.flatMap { name =>
      val path = s"${paths.misplaced}/$name"
      try Some(path -> client.getData.forPath(path))
      catch { case _: KeeperException.NoNodeException => None }
    }
  }

  private def decode(report: ChildData): Option[(Long, String)] = decode(report.getData)

  private def decode(report: Array[Byte]): Option[(Long, String)] =
    MisplacedTasks.decode(report, runKey).map { case (id, wanted, ran) =>
      (id, MisplacedTasks.reason(wanted, ran))
    }

  def close(): Unit =
    try repeats.shutdownNow()
    finally ChildrenCaches.close(cache)
}

object MisplacedTaskWatch {

  /** A misplaced task waits 30 s for its kill; this gives it several. */
  val RepeatMs: Long = 5000L
}
