package com.hx.spark.sql.connector.aof.driver

import java.util.concurrent.{Executors, ScheduledExecutorService, TimeUnit}

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{
  ChildData,
  PathChildrenCache,
  PathChildrenCacheEvent,
  PathChildrenCacheListener
}
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
            case Some((id, reason)) => kill(id, reason)
            case None => log.warn(s"aof: ignoring ${e.getData.getPath}: not sealed by this run")
          }
        }
    })
    cache.start(PathChildrenCache.StartMode.NORMAL)
    // Only reports seen at the previous tick too: one just added was killed by its event.
    var previous = Set.empty[String]
    repeats.scheduleWithFixedDelay(
      () =>
        // A tick that throws would end the repeats.
        try {
          val reports = cache.getCurrentData.asScala.toSeq
          reports.filter(r => previous(r.getPath)).flatMap(decode).foreach(kill.tupled)
          previous = reports.map(_.getPath).toSet
        } catch {
          case e: Exception => log.warn(s"aof: could not repeat the kill of misplaced tasks: $e")
        },
      repeatMs,
      repeatMs,
      TimeUnit.MILLISECONDS
    )
  }

  private def decode(report: ChildData): Option[(Long, String)] =
    MisplacedTasks.decode(report.getData, runKey).map { case (id, wanted, ran) =>
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
