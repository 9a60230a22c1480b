package com.hx.spark.sql.connector.aof.driver

import org.apache.zookeeper.KeeperException
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.ZooKeeperSecurity
import com.hx.spark.sql.connector.aof.protocol.MessageSeal
import com.hx.spark.sql.connector.aof.zookeeper.{EmbeddedZooKeeper, ZkAccess, ZkClients}

/** The driver's embedded server where executors must reach it: the query's own, no one else's. */
class EmbeddedServerSuite extends AnyFunSuite {
  test("a secured server lets the run's clients in, and no one else read, make or change a znode") {
    val session = DriverSession.open(
      None,
      EmbeddedZooKeeper.Listen("127.0.0.1", secured = true),
      30000,
      ZooKeeperSecurity(),
      "/aof",
      "run-1",
      MessageSeal.newKey(),
      (_, _) => ())
    try {
      assert(session.access.security.digest.nonEmpty, "the executors' access carries no login")
      // An executor's client, from the access its tasks carry.
      val executor = ZkClients.open(session.access, "/aof")
      val anonymous =
        ZkClients.open(ZkAccess(session.access.connectString, 30000, embedded = true), "/aof")
      try {
        executor.create().creatingParentsIfNeeded().forPath("/aof/run/request", Array[Byte](1))
        val attempts: Seq[() => Any] = Seq(
          () => anonymous.create().forPath("/forged", Array[Byte](1)),
          () => anonymous.getChildren.forPath("/"),
          () => anonymous.getData.forPath("/aof/run/request"),
          () => anonymous.setData().forPath("/aof/run/request", Array[Byte](2)),
          () => anonymous.create().forPath("/aof/run/forged", Array[Byte](1)),
          () => anonymous.delete().forPath("/aof/run/request")
        )
        attempts.foreach(a => intercept[KeeperException.NoAuthException](a()))
        assert(executor.getData.forPath("/aof/run/request").toSeq === Seq[Byte](1))
      } finally Seq(executor, anonymous).foreach(_.close())
    } finally session.close("run-1")
  }
}
