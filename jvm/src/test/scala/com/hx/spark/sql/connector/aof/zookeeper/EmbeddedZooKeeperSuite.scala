package com.hx.spark.sql.connector.aof.zookeeper

import java.net.{InetSocketAddress, Socket}
import java.nio.file.Files
import java.util.concurrent.ConcurrentLinkedQueue

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.state.{ConnectionState, ConnectionStateListener}
import org.apache.zookeeper.server.persistence.{FileTxnLog, FileTxnSnapLog}
import org.scalatest.funsuite.AnyFunSuite

class EmbeddedZooKeeperSuite extends AnyFunSuite {
  private def accepts(connectString: String): Boolean = {
    val Array(host, port) = connectString.split(":")
    try {
      val s = new Socket()
      try s.connect(new InetSocketAddress(host, port.toInt), 500)
      finally s.close()
      true
    } catch { case _: java.io.IOException => false }
  }

  test("one shared server while leased; the last release stops it") {
    val a = EmbeddedZooKeeper.acquire("127.0.0.1")
    val b = EmbeddedZooKeeper.acquire("127.0.0.1")
    assert(a.connectString === b.connectString)
    val client = ZkClients.open(ZkAccess(a.connectString, 30000), "/aof")
    client.create().forPath("/probe", Array[Byte](1))
    assert(client.getData.forPath("/probe").toSeq === Seq[Byte](1))
    client.close()
    a.release()
    a.release() // a second release of one lease changes nothing
    assert(accepts(b.connectString))
    b.release()
    assert(!EmbeddedZooKeeper.running)
    assert(!accepts(b.connectString))
  }

  test("the server leaves the JVM's default uncaught-exception handler as it was") {
    // ZooKeeper's factory sets its own as its class loads, once a JVM: by this suite or before.
    def zooKeepers = Option(Thread.getDefaultUncaughtExceptionHandler)
      .exists(_.getClass.getName.startsWith("org.apache.zookeeper"))
    assert(!zooKeepers, "a server started before this test left ZooKeeper's handler")
    val before = Thread.getDefaultUncaughtExceptionHandler
    val users: Thread.UncaughtExceptionHandler = (_, _) => ()
    Thread.setDefaultUncaughtExceptionHandler(users)
    try {
      val lease = EmbeddedZooKeeper.acquire("127.0.0.1")
      try assert(Thread.getDefaultUncaughtExceptionHandler eq users)
      finally lease.release()
    } finally Thread.setDefaultUncaughtExceptionHandler(before)
  }

  test("the server's transaction log is written without an fsync each; the JVM's setting is kept") {
    System.setProperty("zookeeper.forceSync", "yes")
    try {
      val lease = EmbeddedZooKeeper.acquire("127.0.0.1")
      try {
        // ZooKeeper's own log of the server's: its field, read as this test's only way in.
        val field = classOf[FileTxnSnapLog].getDeclaredField("txnLog")
        field.setAccessible(true)
        val log = field.get(EmbeddedZooKeeper.server.get.getTxnLogFactory)
        assert(!log.asInstanceOf[FileTxnLog].isForceSync)
      } finally lease.release()
      assert(System.getProperty("zookeeper.forceSync") === "yes")
    } finally System.clearProperty("zookeeper.forceSync")
  }

  test("in local mode the server listens on loopback, open; else on the driver's, secured") {
    assert(
      EmbeddedZooKeeper.listen(localMode = true, "192.0.2.2") ===
        EmbeddedZooKeeper.Listen("127.0.0.1", secured = false))
    assert(
      EmbeddedZooKeeper.listen(localMode = false, "192.0.2.2") ===
        EmbeddedZooKeeper.Listen("192.0.2.2", secured = true))
  }

  test("the last release waits for the clients still connected, so none loses its server") {
    val lease = EmbeddedZooKeeper.acquire("127.0.0.1")
    val client = ZkClients.open(ZkAccess(lease.connectString, 30000), "/aof")
    val states = new ConcurrentLinkedQueue[ConnectionState]()
    client.getConnectionStateListenable.addListener(new ConnectionStateListener {
      override def stateChanged(c: CuratorFramework, s: ConnectionState): Unit = states.add(s)
    })
    // A stopped query's killed task, closing its client a moment after the query's stop.
    val releasing = new Thread(() => lease.release())
    releasing.start()
    val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
    while (!EmbeddedZooKeeper.awaitingClients && releasing.isAlive) {
      assert(System.nanoTime() < deadline, "the release never waited for the client")
      Thread.onSpinWait()
    }
    assert(client.checkExists().forPath("/") != null, "the server stopped under its client")
    client.close()
    releasing.join(10000)
    assert(!releasing.isAlive && !EmbeddedZooKeeper.running)
    assert(states.asScala.toSeq.filter(_ != ConnectionState.CONNECTED) === Nil)
  }

  test("the server's transaction log grows by megabytes, not ZooKeeper's 64 MB") {
    val lease = EmbeddedZooKeeper.acquire("127.0.0.1")
    try {
      val client = ZkClients.open(ZkAccess(lease.connectString, 30000), "/aof")
      try client.create().forPath("/logged", Array[Byte](1))
      finally client.close()
      val walk = Files.walk(EmbeddedZooKeeper.dataDir.get)
      val logs =
        try walk.iterator.asScala.filter(_.getFileName.toString.startsWith("log.")).toList
        finally walk.close()
      assert(logs.nonEmpty, "no transaction log written")
      // One growth and the log's header; ZooKeeper's own default would be 64 MB.
      assert(logs.map(Files.size).max < 2 * EmbeddedZooKeeper.LogGrowthBytes)
    } finally lease.release()
  }

  test("an unreachable address fails with advice naming zookeeper.address") {
    // The default wait (20 s) is what test_read_stream.py runs; here the message is the point.
    val access = ZkAccess("127.0.0.1:1", 30000, connectWaitSeconds = 2)
    val e = intercept[IllegalStateException](ZkClients.open(access, "/aof"))
    assert(e.getMessage.contains("within 2 s; check the option 'zookeeper.address'"))
  }
}
