package com.hx.spark.sql.connector.aof.zookeeper

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.PathChildrenCache

/**
 * Curator's `PathChildrenCache`, closed without racing its own watcher.
 *
 * The cache's watcher runs on ZooKeeper's event thread and hands a refresh to the cache's
 * executor in `submitToExecutor`, which holds the cache's monitor while it checks that the cache
 * is open and submits. `close` does not take that monitor (Curator 2.13 and 5.x alike). So a
 * child changing while a query stops could pass the check, then meet the executor `close` had
 * just shut, and ZooKeeper logged the `RejectedExecutionException` as an ERROR with its stack
 * trace. Closed under the monitor, the check and the submit happen wholly before or after.
 */
object ChildrenCaches {

  /** A cache of `path`'s children, with their data if `withData`; not started. */
  def apply(client: CuratorFramework, path: String, withData: Boolean): PathChildrenCache =
    new PathChildrenCache(client, path, withData)

  def close(cache: PathChildrenCache): Unit = cache.synchronized(cache.close())
}
