package com.hx.spark.sql.connector.aof.driver

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.protocol.MessageSeal
import com.hx.spark.sql.connector.aof.testkit.{Logged, SparkTestKit, ZooKeeperFixture}

/** What a trigger says of hosts without an endpoint: nothing once its query is stopping. */
class HostNewsStopSuite extends AnyFunSuite with SparkTestKit with ZooKeeperFixture {

  test("a trigger ended by the query's stop does not warn of hosts without an endpoint") {
    val client = zkClient("/stopping")
    val coordinator = new Coordinator(client, "/stopping", "run", MessageSeal.newKey())
    coordinator.start()
    // A launch that starts no endpoint, as one cancelled by the stop: the host has none.
    def news() = new HostNews(
      () => Map("h" -> Seq("1")),
      _ => spark.sparkContext.parallelize(Seq.empty[(String, String)], 1).collectAsync(),
      nodeNamed = false,
      startAwaitMs = 100,
      metaAwaitMs = 100,
      new AnswerWarnings(Seq("/logs"), _ => (), _ => ())
    )
    try {
      val printed = Logged.printed { seen =>
        news().forTrigger(coordinator, AofOffset.Empty) // running: said
        val stopping = news()
        stopping.stop()
        stopping.forTrigger(coordinator, AofOffset.Empty) // stopping: not said
        seen().map(_.message).filter(_.contains("no endpoint"))
      }
      assert(printed === Seq("aof: no endpoint on h; their files wait"))
    } finally coordinator.stop()
  }
}
