package com.hx.spark.sql.connector.aof.metrics

import java.nio.file.{Files, Paths}

import scala.collection.JavaConverters._

import org.apache.spark.sql.streaming.Trigger
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.shim.SparkExecutors
import com.hx.spark.sql.connector.aof.stream.ScanMetrics
import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Queries, SparkTestKit}

/** One definition per metric: the docs' table, the progress, the Spark UI's, all from it. */
class MetricDefinitionsSuite extends AnyFunSuite with SparkTestKit {

  test("docs/operating.md's metrics table is the generated one") {
    val page = new String(Files.readAllBytes(Paths.get("..", "docs", "operating.md")), "UTF-8")
    if (!page.contains(MetricDefinitions.table)) {
      fail("docs/operating.md's metrics table is stale; paste in:\n" + MetricDefinitions.table)
    }
  }

  test("a query's progress names exactly the metrics defined for it") {
    val here = { spark; SparkExecutors.currentHost }
    val dir = newDir("logs")
    LogWriter.append(dir.resolve("app-a.log"), Seq("a-1 line"))
    val query = Queries.start(
      spark,
      s"$dir/app-.*\\.log",
      newDir("ckpt"),
      newDir("out"),
      Map("nodes" -> s"""["$here"]"""),
      Trigger.AvailableNow())
    assert(query.awaitTermination(120000))
    val shown = query.lastProgress.sources.head.metrics.asScala.keySet
      .map(_.replace("." + here, "." + MetricDefinitions.Host))
    assert(shown === MetricDefinitions.at(Place.Progress).map(_.name).toSet)
  }

  test("the Spark UI shows the metrics defined for it, each described") {
    assert(
      ScanMetrics.supported.map(_.name).toSet ===
        MetricDefinitions.at(Place.SparkUi).map(_.name).toSet)
    assert(ScanMetrics.supported.forall(_.description.startsWith("aof ")))
  }

  test("names are unique, each metric shows somewhere") {
    val names = MetricDefinitions.All.map(_.name)
    assert(names.distinct === names)
    assert(MetricDefinitions.All.forall(_.places.nonEmpty))
  }
}
