package com.hx.spark.sql.connector.aof.endpoint

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.collection.JavaConverters._

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.driver.Coordinator
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.protocol.{MessageSeal, ZkPaths}
import com.hx.spark.sql.connector.aof.shim.StopWarnings
import com.hx.spark.sql.connector.aof.testkit.{Logged, TempDirectories, ZooKeeperFixture}
import com.hx.spark.sql.connector.aof.testkit.Polling.eventually

/** What a user's console shows when a query stops while its endpoints elect a leader. */
class EndpointStopSuite extends AnyFunSuite with ZooKeeperFixture with TempDirectories {

  test("endpoints stopped at any point of their election print nothing") {
    StopWarnings.quiet
    val client = zkClient("/stops")
    val dir = tempDirectory("aof-stops-")
    Files.write(dir.resolve("app.log"), "a\n".getBytes(UTF_8))
    val key = MessageSeal.newKey()
    val printed = Logged.printed { seen =>
      for (run <- 1 to 30) {
        val coordinator = new Coordinator(client, s"/stops/$run", s"stops-run-$run", key)
        coordinator.start()
        val spec =
          EndpointSpec(
            s"stops-run-$run",
            zk.access,
            s"/stops/$run",
            SourceFiles(dir, "app.*"),
            1024,
            key)
        // Two executors of one host: one serves, one stands by and watches it.
        val endpoints = Seq.fill(2)(new NodeEndpoint(spec, "host", () => ()))
        endpoints.foreach(_.start())
        val latch = ZkPaths(spec.metaStore, spec.runId).latch("host")
        def members = Option(client.checkExists().forPath(latch)).fold(0)(_ =>
          client.getChildren.forPath(latch).asScala.size)
        // The stop comes as the election starts, midway, or once both have joined.
        if (run % 3 > 0) eventually("latch members")(members >= run % 3)
        endpoints.foreach(_.shutdown())
        coordinator.stop()
      }
      seen().filter(p => p.level == "ERROR" || p.level == "WARN")
    }
    assert(printed === Nil)
  }

  test("an endpoint is made without a request: a launch task killed meanwhile leaves no client") {
    // The endpoint is made under its registry's lock, before it can be stopped; a request of
    // ZooKeeper there, interrupted by the task's kill, would leave its client connected.
    val closed = zkClient("/made")
    closed.close()
    val report = new EndpointReport(closed, "/made/report", "/made/reports", "key", "host")
    intercept[IllegalStateException](report.start())
    report.close()
  }
}
