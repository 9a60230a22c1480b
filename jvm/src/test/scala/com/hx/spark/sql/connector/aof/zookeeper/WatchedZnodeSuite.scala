package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{CountDownLatch, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.api.CuratorEvent
import org.apache.zookeeper.{Watcher, ZooKeeper}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.Polling.eventually
import com.hx.spark.sql.connector.aof.testkit.ZooKeeperFixture

/** A znode followed with one read a change, against a real ZooKeeper server. */
class WatchedZnodeSuite extends AnyFunSuite with ZooKeeperFixture {
  private lazy val writer: CuratorFramework = zkClient("/watched")

  private def text(watched: WatchedZnode): Option[String] =
    watched.current.map(new String(_, UTF_8))

  private def write(path: String, value: String): Unit =
    if (writer.checkExists().forPath(path) == null) {
      writer.create().creatingParentsIfNeeded().forPath(path, value.getBytes(UTF_8))
    } else writer.setData().forPath(path, value.getBytes(UTF_8))

  /** Returns once the client has run every callback of what it asked before. */
  private def answered(client: CuratorFramework, path: String): Unit = {
    val done = new CountDownLatch(1)
    client
      .checkExists()
      .inBackground((_: CuratorFramework, _: CuratorEvent) => done.countDown())
      .forPath(path)
    assert(done.await(10, TimeUnit.SECONDS))
  }

  test("follows a znode from missing to created, changed, deleted and created again") {
    val path = "/watched/a"
    val client = ZkClients.open(zk.access, "/watched")
    val reads = new AtomicInteger()
    val watched = new WatchedZnode(client, path, () => reads.incrementAndGet())
    try {
      watched.start()
      eventually("read while missing")(reads.get >= 1)
      assert(watched.current === None)
      write(path, "1")
      eventually("created")(text(watched).contains("1"))
      write(path, "2")
      eventually("changed")(text(watched).contains("2"))
      writer.delete().forPath(path)
      eventually("deleted")(watched.current.isEmpty)
      write(path, "3")
      eventually("created again")(text(watched).contains("3"))
    } finally {
      watched.close()
      client.close()
    }
  }

  test("a change made while its session was gone is read once the client has a new one") {
    val path = "/watched/b"
    write(path, "1")
    val client = ZkClients.open(zk.access, "/watched")
    val watched = new WatchedZnode(client, path, () => ())
    try {
      watched.start()
      eventually("read")(text(watched).contains("1"))
      // Ends the session for real, as ZooKeeper ends one that expired: another connection with
      // its id and password closes it, and the server drops its watches.
      val session = client.getZookeeperClient.getZooKeeper
      new ZooKeeper(
        zk.connectString,
        10000,
        _ => (),
        session.getSessionId,
        session.getSessionPasswd)
        .close()
      write(path, "2") // no watch left to tell
      eventually("read in the new session")(text(watched).contains("2"))
    } finally {
      watched.close()
      client.close()
    }
  }

  test("a change its watch missed is read at the next check, and only then") {
    val path = "/watched/c"
    write(path, "1")
    val client = ZkClients.open(zk.access, "/watched")
    val reads = new AtomicInteger()
    val watched = new WatchedZnode(client, path, () => reads.incrementAndGet())
    try {
      watched.start()
      eventually("read")(text(watched).contains("1"))
      watched.check()
      // The check answered, then any read it asked: a client's callbacks run in order.
      answered(client, path)
      answered(client, path)
      assert(reads.get === 1)
      // The watch gone from the server, as after a read that failed on a live connection.
      client.getZookeeperClient.getZooKeeper
        .removeAllWatches(path, Watcher.WatcherType.Data, false)
      write(path, "2")
      answered(client, path)
      answered(client, path)
      assert(text(watched).contains("1"))
      watched.check()
      eventually("read at the check")(text(watched).contains("2"))
      write(path, "3")
      eventually("watched again")(text(watched).contains("3"))
    } finally {
      watched.close()
      client.close()
    }
  }
}
