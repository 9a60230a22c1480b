package com.hx.spark.sql.connector.aof.zookeeper

import java.util.concurrent.ConcurrentLinkedQueue

import scala.collection.JavaConverters._

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.{LogEvent, LoggerContext}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.Polling.eventually

class ZooKeeperLogsSuite extends AnyFunSuite {
  private def context: LoggerContext = LogManager.getContext(false).asInstanceOf[LoggerContext]

  /** The messages logged by `ZooKeeperLogs` while `body` runs. */
  private def loggedDuring(body: (() => Seq[String]) => Unit): Unit = {
    val seen = new ConcurrentLinkedQueue[String]()
    val appender =
      new AbstractAppender("seen", null, null, true, Property.EMPTY_ARRAY) {
        override def append(event: LogEvent): Unit =
          seen.add(event.getMessage.getFormattedMessage)
      }
    appender.start()
    val logger = context.getLogger(ZooKeeperLogs.getClass.getName)
    logger.addAppender(appender)
    try body(() => seen.asScala.toSeq)
    finally logger.removeAppender(appender)
  }

  test("a normal close's warnings are quieted; a logger the configuration names is left alone") {
    ZooKeeperLogs.quiet
    val Seq(client, server) = ZooKeeperLogs.Quieted
    assert(context.getLogger(client).getLevel === Level.ERROR)
    // log4j2.properties of the suites names the server's logger, at WARN.
    assert(context.getLogger(server).getLevel === Level.WARN)
  }

  test("a connection lost is said in one line naming the address") {
    loggedDuring { seen =>
      val lease = EmbeddedZooKeeper.acquire("127.0.0.1")
      val client = ZkClients.open(ZkAccess(lease.connectString, 30000, None), "/aof")
      try {
        lease.release()
        eventually("a line on the lost connection") {
          seen().exists(m => m.contains(lease.connectString) && m.contains("SUSPENDED"))
        }
      } finally client.close()
    }
  }
}
