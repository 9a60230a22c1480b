package com.hx.spark.sql.connector.aof.stream

import java.time.Clock

import org.apache.spark.sql.SparkSession

import com.hx.spark.sql.connector.aof.backlog.{SourceMetrics, WriteTimes}
import com.hx.spark.sql.connector.aof.driver.QueryRun
import com.hx.spark.sql.connector.aof.metrics.{GaugeGroup, Gauges, MetricDefinitions => M}
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.News
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.shim.QueryName

/**
 * A micro-batch stream's figures ([[M]]): the backlog's, from an offset on, and the run's. The
 * query's progress asks for them at each batch; with Spark's metrics plugin, a scrape reads them
 * as the query's gauges, between triggers, from where the last trigger started.
 */
private[stream] final class StreamFigures(
    spark: SparkSession,
    run: QueryRun,
    counters: ReadCounters,
    clock: Clock) {
  private val writeTimes = new WriteTimes
  @volatile private var plannedLoss = 0L
  // For the gauges, read between triggers: what the last trigger started from, and its time.
  @volatile private var consumedAtTrigger = AofOffset.Empty
  @volatile private var planningMs = 0L
  // Made on the query's thread once a session lists the query, which may be only after Spark
  // made its sources: a few triggers at most, then named by the query's id.
  @volatile private var gauges: Option[GaugeGroup] = None
  private var triggers = 0
  // A scrape reads every gauge at once: the figures are worked out once for all of them.
  @volatile private var lastGaugeFigures: Option[(Long, Map[String, Long])] = None

  /** The hosts' news of a trigger from `start`: when their bytes were written. */
  def observe(news: News, start: AofOffset): Unit =
    writeTimes.observe(news, start, clock.millis())

  /** Bytes a plan found gone before they were read. */
  def lost(bytes: Long): Unit = plannedLoss += bytes

  /** A trigger from `start` planned, in `ms`: the gauges follow. */
  def planned(start: AofOffset, ms: Long): Unit = {
    consumedAtTrigger = start
    planningMs = ms
    syncGauges()
  }

  /** The figures read from `consumed` on: the progress's, and the gauges'. */
  def of(consumed: AofOffset): Map[String, Long] =
    SourceMetrics.of(consumed, run.lastNews, writeTimes, clock.millis()) ++ runFigures

  def close(): Unit = gauges.foreach(_.close())

  // The figures of the run, not of the backlog: none is a pass over files.
  private def runFigures: Map[String, Long] =
    run.nodesRead.fold(Map.empty[String, Long])(_.figures) ++ Map[String, Long](
      M.HostsWithoutEndpoint.name -> run.hostsWithoutEndpoint.size.toLong,
      M.LinesRead.name -> counters.linesRead.value,
      M.BytesRead.name -> counters.bytesRead.value,
      M.BytesLost.name -> (plannedLoss + counters.bytesLost.value),
      M.LinesTruncated.name -> counters.linesTruncated.value,
      M.LinesFiltered.name -> counters.linesFiltered.value,
      M.LinesMalformed.name -> counters.linesMalformed.value,
      M.LinesInvalidEncoding.name -> counters.linesInvalidEncoding.value,
      M.FilesRemoved.name -> run.filesRemoved,
      M.FilesNotRemoved.name -> run.filesNotRemoved,
      M.PlanningMs.name -> planningMs
    )

  // Without the plugin, nothing: no gauge to name or keep up to date.
  private def syncGauges(): Unit = if (Gauges.enabled) {
    triggers += 1
    if (gauges.isEmpty) {
      val name = QueryName.of(spark).orElse(Some(QueryName.id(spark)).filter(_ => triggers > 10))
      gauges = name.map(n => Gauges.group(s"query.${Gauges.part(n)}", () => gaugeFigures()))
    }
    gauges.foreach(_.sync(SourceMetrics.names(run.lastNews) ++ runFigures.keySet))
  }

  private def gaugeFigures(): Map[String, Long] = {
    val now = clock.millis()
    lastGaugeFigures match {
      case Some((at, last)) if now - at < 1000L && now >= at => last
      case _ =>
        val fresh = of(consumedAtTrigger)
        lastGaugeFigures = Some((now, fresh))
        fresh
    }
  }
}
