package com.hx.spark.sql.connector.aof.metrics

import java.lang.management.ManagementFactory
import java.net.{HttpURLConnection, URL}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import javax.management.ObjectName

import scala.collection.JavaConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.MetricsPlugin
import com.hx.spark.sql.connector.aof.shim.SparkExecutors
import com.hx.spark.sql.connector.aof.testkit.{LogWriter, SparkTestKit}
import com.hx.spark.sql.connector.aof.testkit.Queries.drain

/**
 * The plugin in a real session with the sinks operators use: Spark's PrometheusServlet and JMX,
 * scraped as a log grows; the scan's own figures through the SQL REST API; and the dashboard of
 * docs/ against the same scrape.
 */
class MetricsPluginSuite extends AnyFunSuite with SparkTestKit {
  override lazy val spark: SparkSession = SparkSession
    .builder()
    .master("local[2]")
    .appName(getClass.getSimpleName)
    .config("spark.plugins", classOf[MetricsPlugin].getName)
    .config("spark.ui.port", "0")
    .config("spark.ui.prometheus.enabled", "true")
    .config(
      "spark.metrics.conf.*.sink.prometheusServlet.class",
      "org.apache.spark.metrics.sink.PrometheusServlet")
    .config("spark.metrics.conf.*.sink.prometheusServlet.path", "/metrics/prometheus")
    .config("spark.metrics.conf.*.sink.jmx.class", "org.apache.spark.metrics.sink.JmxSink")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()

  private lazy val ui = spark.sparkContext.uiWebUrl.get

  private def get(path: String): String = {
    val c = new URL(ui + path).openConnection().asInstanceOf[HttpURLConnection]
    try {
      assert(c.getResponseCode === 200, s"$path answered ${c.getResponseCode}")
      new String(c.getInputStream.readAllBytes(), UTF_8)
    } finally c.disconnect()
  }

  /** The driver's scrape: each series' name and value. */
  private def scrape(): Map[String, Double] =
    get("/metrics/prometheus/").linesIterator
      .filter(l => l.nonEmpty && !l.startsWith("#"))
      .map { l =>
        val name = l.takeWhile(_ != '{')
        name -> l.substring(l.lastIndexOf(' ') + 1).toDouble
      }
      .toMap

  private def gauge(series: Map[String, Double], suffix: String): Option[Double] =
    series.collectFirst { case (n, v) if n.endsWith(s"_MetricsPlugin_$suffix") => v }

  private def start(
      name: Option[String],
      dir: java.nio.file.Path,
      options: Map[String, String] = Map.empty): StreamingQuery = {
    val writer = spark.readStream
      .format("aof")
      .options(options)
      .load(s"$dir/app\\.log")
      .writeStream
      .format("noop")
      .option("checkpointLocation", newDir("ckpt").toString)
    name.fold(writer)(writer.queryName).start()
  }

  test(
    "a named query's gauges in a Prometheus scrape and JMX: reads grow, the backlog falls to 0") {
    val dir = newDir("logs")
    val writer = new LogWriter(dir.resolve("app.log"), "a", 3000).start()
    val query = start(Some("weblogs"), dir)
    eventually("lines read while the log grows") {
      gauge(scrape(), "query_weblogs_linesRead_Value").exists(_ > 0)
    }
    val written = writer.join()
    drain(query)
    eventually("every line read, nothing behind") {
      val s = scrape()
      gauge(s, "query_weblogs_linesRead_Value").contains(written.size.toDouble) &&
      gauge(s, "query_weblogs_bytesBehindLatest_Value").contains(0.0) &&
      gauge(s, "query_weblogs_secondsBehindLatest_Value").contains(0.0)
    }
    val s = scrape()
    val bytes = Files.size(dir.resolve("app.log")).toDouble
    assert(gauge(s, "query_weblogs_bytesRead_Value").contains(bytes))
    // Each gauge twice, as docs/operating.md's excerpt shows.
    assert(gauge(s, "query_weblogs_bytesRead_Number").contains(bytes))
    assert(gauge(s, "query_weblogs_filesTracked_Value").contains(1.0))
    assert(s.keys.exists(_.matches(".*_query_weblogs_bytesBehindLatest_.+_Value")), s.keys)
    // In local mode the endpoint runs in the driver's JVM: its gauges are the driver's.
    val endpoint = s.filter(_._1.contains("_MetricsPlugin_endpoint_"))
    assert(endpoint.exists { case (n, v) => n.endsWith("_filesWatched_Value") && v == 1.0 }, s)
    assert(endpoint.exists { case (n, v) => n.endsWith("_serving_Value") && v == 1.0 }, s)
    assert(endpoint.exists { case (n, v) => n.endsWith("_looks_Value") && v > 0 }, s)
    val read = written.size.toDouble
    assert(endpoint.exists { case (n, v) => n.endsWith("_linesRead_Value") && v == read }, s)
    assert(get("/metrics/executors/prometheus/").contains("metrics_executor_"))

    val jmx = ManagementFactory.getPlatformMBeanServer
    val names = jmx.queryNames(new ObjectName("metrics:*"), null).asScala
    val lines = names.find(_.getKeyProperty("name").endsWith(".query.weblogs.linesRead"))
    assert(lines.nonEmpty, names.map(_.getKeyProperty("name")))
    assert(jmx.getAttribute(lines.get, "Value") === written.size.toLong)

    query.stop()
    assert(!scrape().keys.exists(_.contains("_query_weblogs_")), "gauges left by a stopped query")
  }

  test("the scan's figures per batch in the SQL tab, summed over the batches: every line once") {
    val dir = newDir("logs")
    val written = LogWriter.append(dir.resolve("app.log"), (1 to 500).map(n => s"sql-$n"))
    val query = start(Some("sqltab"), dir)
    drain(query)
    query.stop()
    val app = spark.sparkContext.applicationId
    // Spark's listener takes the batches' figures in after they end, off the query's thread.
    def scans() = {
      val json = new ObjectMapper()
        .readTree(get(s"/api/v1/applications/$app/sql?details=true&length=100000"))
      for {
        execution <- json.elements().asScala.toSeq
        // The first batch is described by where the query started, not by its name.
        if execution.path("planDescription").asText.contains(dir.toString)
        node <- execution.path("nodes").elements().asScala
        metric <- node.path("metrics").elements().asScala
      } yield metric.path("name").asText -> metric.path("value").asText.filter(_.isDigit).toLong
    }
    def total(name: String) = scans().collect { case (`name`, v) => v }.sum
    eventually("every batch's figures")(total("aof lines read") == written.size)
    assert(total("aof bytes read") === Files.size(dir.resolve("app.log")))
    assert(total("aof files read") >= 1L)
    assert(total("aof multi-line records") === 0L && total("aof bytes lost") === 0L)
    assert(scans().exists(_._1 == "aof lines filtered"))
  }

  test("two queries stay apart: by name, and an unnamed one by its id") {
    val (a, b) = (newDir("a"), newDir("b"))
    LogWriter.append(a.resolve("app.log"), (1 to 10).map(n => s"a-$n"))
    LogWriter.append(b.resolve("app.log"), (1 to 20).map(n => s"b-$n"))
    val named = start(Some("first"), a)
    val unnamed = start(None, b)
    try {
      drain(named)
      drain(unnamed)
      val id = unnamed.id.toString.replace('-', '_')
      eventually("both queries' gauges") {
        val s = scrape()
        gauge(s, "query_first_linesRead_Value").contains(10.0) &&
        gauge(s, s"query_${id}_linesRead_Value").contains(20.0)
      }
    } finally {
      named.stop()
      unnamed.stop()
    }
  }

  test("every series the Grafana dashboard of docs/ asks for is in a real scrape") {
    val dir = newDir("logs")
    LogWriter.append(dir.resolve("app.log"), (1 to 10).map(n => s"g-$n"))
    // `nodes` named: the dashboard shows the nodes unread.
    val query =
      start(Some("dashboard"), dir, Map("nodes" -> s"""["${SparkExecutors.currentHost}"]"""))
    try {
      drain(query)
      val dashboard = new ObjectMapper().readTree(
        Files.readAllBytes(Paths.get("..", "docs", "grafana-dashboard.json")))
      val exprs = dashboard.findValues("expr").asScala.map(_.asText)
      assert(exprs.size >= 4, exprs)
      val patterns = exprs.flatMap("""__name__=~"([^"]+)"""".r.findAllMatchIn(_).map(_.group(1)))
      assert(patterns.size >= exprs.size, s"a panel names no series: $exprs")
      eventually("every series of the dashboard") {
        val names = scrape().keySet
        patterns.forall(p => names.exists(_.matches(p)))
      }
    } finally query.stop()
  }
}
