package com.hx.spark.sql.connector.aof.shim

import org.apache.logging.log4j.LogManager
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Logged, Queries, SparkTestKit}

class StopWarningsSuite extends AnyFunSuite with SparkTestKit {

  test("a query's stop says nothing of job groups; the scheduler's other warnings are kept") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    LogWriter.append(dir.resolve("app.log"), Seq("a", "b"))
    val query = Queries.start(spark, s"$dir/app\\.log", ckpt, out)
    Queries.drain(query)
    val logged = Logged.during(StopWarnings.Logger) { seen =>
      query.stop()
      LogManager.getLogger(StopWarnings.Logger).warn("Failed to cancel job group x: other words")
      seen()
    }
    // Spark 4 said "Failed to cancel job group <run id>. Cannot find active jobs for it." twice.
    assert(logged === Seq("Failed to cancel job group x: other words"))
  }
}
