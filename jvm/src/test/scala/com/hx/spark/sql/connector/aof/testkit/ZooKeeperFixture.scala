package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}

import scala.collection.mutable

import org.apache.curator.framework.CuratorFramework
import org.scalatest.{BeforeAndAfterAll, Suite}

import com.hx.spark.sql.connector.aof.zookeeper.ZkClients

/**
 * A suite's own ZooKeeper server, in a process of its own ([[ZooKeeperProcess]]), started when
 * first used. After the suite (and what it stops itself), the clients it opened here are closed,
 * the server stopped and its directory removed.
 */
trait ZooKeeperFixture extends BeforeAndAfterAll { self: Suite =>
  private val zkRoot: Path = Files.createTempDirectory("aof-zk-")
  private var started: Option[ZooKeeperProcess] = None
  private val clients = mutable.ListBuffer.empty[CuratorFramework]

  protected def zk: ZooKeeperProcess = synchronized {
    started.getOrElse {
      val server = ZooKeeperProcess.start(zkRoot)
      started = Some(server)
      server
    }
  }

  /** A client of the server whose paths are under `namespace`, closed after the suite. */
  protected def zkClient(namespace: String): CuratorFramework = synchronized {
    val client = ZkClients.open(zk.access, namespace)
    clients += client
    client
  }

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally
      synchronized {
        try clients.foreach(_.close())
        finally {
          started.foreach(_.stop())
          TempDirectories.delete(zkRoot)
        }
      }
}
