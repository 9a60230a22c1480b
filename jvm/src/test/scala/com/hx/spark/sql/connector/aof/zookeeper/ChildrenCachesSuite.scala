package com.hx.spark.sql.connector.aof.zookeeper

import java.lang.reflect.Modifier

import org.apache.curator.framework.recipes.cache.PathChildrenCache
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.Polling.eventually
import com.hx.spark.sql.connector.aof.testkit.ZooKeeperFixture

/**
 * Curator's children cache closed so that its watcher never submits to an executor already shut.
 * The race itself lasts a few instructions and cannot be caused at will; these two facts together
 * rule it out.
 */
class ChildrenCachesSuite extends AnyFunSuite with ZooKeeperFixture {

  test("Curator's watcher checks that the cache is open and submits under the cache's monitor") {
    val submit =
      classOf[PathChildrenCache].getDeclaredMethod("submitToExecutor", classOf[Runnable])
    assert(
      Modifier.isSynchronized(submit.getModifiers),
      "Curator changed how its watcher submits: ChildrenCaches.close must exclude it another way")
  }

  test("close waits for the cache's monitor, so it never falls between that check and submit") {
    val client = zkClient("/children")
    client.create().forPath("/a")
    val cache = ChildrenCaches(client, "/", withData = false)
    cache.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE)
    val closer = new Thread(() => ChildrenCaches.close(cache), "aof-test-closer")
    cache.synchronized {
      closer.start()
      eventually("close waits for the monitor")(closer.getState == Thread.State.BLOCKED)
      cache.rebuild() // still open while the monitor is held
    }
    closer.join(30000)
    assert(!closer.isAlive)
    intercept[IllegalStateException](cache.rebuild())
  }
}
