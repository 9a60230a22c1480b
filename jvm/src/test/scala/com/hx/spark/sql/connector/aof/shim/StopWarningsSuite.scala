package com.hx.spark.sql.connector.aof.shim

import scala.collection.JavaConverters._

import org.apache.logging.log4j.LogManager
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Logged, Queries, SparkTestKit}

class StopWarningsSuite extends AnyFunSuite with SparkTestKit {

  test("a query's stop says nothing of job groups; the scheduler's other warnings are kept") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    LogWriter.append(dir.resolve("app.log"), Seq("a", "b"))
    val query = Queries.start(spark, s"$dir/app\\.log", ckpt, out)
    Queries.drain(query)
    val printed = Logged.printed { seen =>
      query.stop()
      LogManager.getLogger(StopWarnings.Logger).warn("Failed to cancel job group x: other words")
      seen().filter(p => p.level == "WARN" || p.level == "ERROR")
    }
    // Spark 4 said "Failed to cancel job group <run id>. Cannot find active jobs for it." twice.
    assert(printed.map(_.message) === Seq("Failed to cancel job group x: other words"))
  }

  test("no logger gets a configuration of its own, which Spark's WARN default would let through") {
    StopWarnings.quiet
    val configured = Logged.context.getConfiguration.getLoggers.keySet.asScala
    assert(!configured.exists(_.startsWith("org.apache.spark.")), configured)
  }
}
