package com.hx.spark.sql.connector.aof.stream

import java.nio.file.Path

import org.apache.spark.sql.streaming.{StreamingQueryException, Trigger}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.shim.SparkExecutors
import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Logged, Queries, SparkTestKit}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/**
 * The option `nodes` in local mode, where the driver's host is the one node read: another node
 * named there is never read, as a node of a cluster with no executor is not. Clusters, their
 * managers and placement are the Python suites' (`test_every_node.py`).
 */
class EveryNodeSuite extends AnyFunSuite with SparkTestKit {
  private lazy val here = { spark; SparkExecutors.currentHost }

  private def nodes(names: String*) = names.map(n => s""""$n"""").mkString("[", ",", "]")

  private def run(dir: Path, options: Map[String, String], trigger: Trigger) = {
    val (ckpt, out) = (newDir("ckpt"), newDir("out"))
    (Queries.start(spark, s"$dir/app-.*\\.log", ckpt, out, options, trigger), out)
  }

  private def failure(trigger: Trigger): (String, Long) = {
    val dir = newDir("logs")
    LogWriter.append(dir.resolve("app-a.log"), Seq("a-1 line"))
    val options = Map("nodes" -> nodes(here, "nowhere"), "nodes.await.timeout" -> "3000")
    val started = System.nanoTime()
    val (query, _) = run(dir, options, trigger)
    val e = intercept[StreamingQueryException](query.awaitTermination(120000))
    (e.getMessage, (System.nanoTime() - started) / 1000000L)
  }

  Seq("AvailableNow" -> Trigger.AvailableNow(), "Once" -> Trigger.Once()).foreach {
    case (name, trigger) =>
      test(s"Trigger.$name fails within nodes.await.timeout, naming the node it cannot read") {
        val (message, tookMs) = failure(trigger)
        assert(message.contains("aof: nowhere of 'nodes' did not answer within 3000 ms"), message)
        assert(message.contains("nodes.await.timeout") && message.contains("Local mode"), message)
        assert(tookMs < 60000L, s"took $tookMs ms")
      }
  }

  test("Trigger.AvailableNow ends once every node named is read") {
    val dir = newDir("logs")
    val ids = LogWriter.append(dir.resolve("app-a.log"), (1 to 100).map(n => s"a-$n"))
    val (query, out) = run(dir, Map("nodes" -> nodes(here)), Trigger.AvailableNow())
    assert(query.awaitTermination(120000))
    assertExactlyOnce(spark, out, ids)
  }

  test("a running query counts and names the node unread, and warns once, reading the others") {
    Logged.during("com.hx.spark.sql.connector.aof.driver.ZooKeeperRun") { said =>
      val dir = newDir("logs")
      val writer = new LogWriter(dir.resolve("app-a.log"), "a", 500).start()
      val (query, out) =
        run(dir, Map("nodes" -> nodes(here, "nowhere")), Trigger.ProcessingTime(0L))
      val ids = writer.join()
      drain(query)
      def metrics = query.lastProgress.sources.head.metrics
      assert(metrics.get("nodesExpected") === "2")
      assert(metrics.get("nodesUnread") === "1")
      assert(metrics.get("nodesUnreadNames") === "nowhere")
      def warned = said().filter(_.contains("have had no endpoint for 10 s"))
      eventually("the warning, ten seconds on")(warned.nonEmpty)
      val triggers = query.recentProgress.length
      eventually("a progress later")(query.recentProgress.length > triggers)
      query.stop()
      assertExactlyOnce(spark, out, ids)
      assert(warned.size === 1, said())
      assert(warned.head.contains("1 of the 2 nodes to read ('nodes')"), warned)
    }
  }
}
