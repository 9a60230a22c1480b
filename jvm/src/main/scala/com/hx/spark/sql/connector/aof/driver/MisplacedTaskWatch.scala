package com.hx.spark.sql.connector.aof.driver

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{
  PathChildrenCache,
  PathChildrenCacheEvent,
  PathChildrenCacheListener
}
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{MisplacedTasks, ZkPaths}

/** Kills each read task of the run reported as misplaced ([[MisplacedTasks]]) as it comes. */
final class MisplacedTaskWatch(client: CuratorFramework, paths: ZkPaths, runKey: String) {
  private val log = LoggerFactory.getLogger(getClass)
  private val cache = new PathChildrenCache(client, paths.misplaced, true)

  /** @param kill kills a task attempt with the reason given */
  def start(kill: (Long, String) => Unit): Unit = {
    cache.getListenable.addListener(new PathChildrenCacheListener {
      override def childEvent(c: CuratorFramework, e: PathChildrenCacheEvent): Unit =
        if (e.getType == PathChildrenCacheEvent.Type.CHILD_ADDED) {
          MisplacedTasks.decode(e.getData.getData, runKey) match {
            case Some((id, wanted, ran)) => kill(id, MisplacedTasks.reason(wanted, ran))
            case None => log.warn(s"aof: ignoring ${e.getData.getPath}: not sealed by this run")
          }
        }
    })
    cache.start(PathChildrenCache.StartMode.NORMAL)
  }

  def close(): Unit = cache.close()
}
