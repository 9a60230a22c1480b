package com.hx.spark.sql.connector.aof.zookeeper

import org.apache.logging.log4j.Level
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.Logged
import com.hx.spark.sql.connector.aof.testkit.Polling.eventually

class ZooKeeperLogsSuite extends AnyFunSuite {
  private def context = Logged.context

  /** The messages logged by `ZooKeeperLogs` while `body` runs. */
  private def loggedDuring(body: (() => Seq[String]) => Unit): Unit =
    Logged.during(ZooKeeperLogs.getClass.getName)(body)

  test("a normal close's warnings are quieted; a logger the configuration names is left alone") {
    ZooKeeperLogs.quiet
    val Seq(client, server, _, socket) = ZooKeeperLogs.Quieted
    assert(context.getLogger(client).getLevel === Level.ERROR)
    assert(context.getLogger(socket).getLevel === Level.ERROR)
    // log4j2.properties of the suites names the server's logger, at WARN.
    assert(context.getLogger(server).getLevel === Level.WARN)
  }

  test("the embedded server starts without a warning") {
    val logged = Logged.during("org.apache.zookeeper.server.ServerCnxnFactory") { seen =>
      EmbeddedZooKeeper.acquire("127.0.0.1").release()
      seen()
    }
    assert(logged.isEmpty)
  }

  test("a connection lost is said in one line naming the address") {
    loggedDuring { seen =>
      val lease = EmbeddedZooKeeper.acquire("127.0.0.1")
      val client = ZkClients.open(ZkAccess(lease.connectString, 30000), "/aof")
      try {
        lease.release()
        eventually("a line on the lost connection") {
          seen().exists(m => m.contains(lease.connectString) && m.contains("SUSPENDED"))
        }
      } finally client.close()
    }
  }
}
