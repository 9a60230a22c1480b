package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}

import com.hx.spark.sql.connector.aof.metrics.MetricDefinition
import com.hx.spark.sql.connector.aof.metrics.MetricDefinitions._
import com.hx.spark.sql.connector.aof.read.ReadCounters

/**
 * The scan's own figures on its node of the Spark UI's SQL tab, per batch: each task gives its
 * counters' values ([[ReadCounters]] hold a task's own in the task), Spark sums them. Spark
 * makes each metric again from its class name to sum, so each is a class with no arguments.
 */
sealed abstract class ScanMetric(definition: MetricDefinition) extends CustomSumMetric {
  override def name(): String = definition.name
  override def description(): String = ScanMetrics.descriptions(definition.name)
}

final class LinesReadMetric extends ScanMetric(LinesRead)
final class BytesReadMetric extends ScanMetric(BytesRead)
final class LinesFilteredMetric extends ScanMetric(LinesFiltered)
final class BytesLostMetric extends ScanMetric(BytesLost)
final class FilesReadMetric extends ScanMetric(FilesRead)
final class RecordsJoinedMetric extends ScanMetric(RecordsJoined)

object ScanMetrics {

  /** As the UI shows them: short, in the words of Spark's own. */
  private[stream] val descriptions: Map[String, String] = Map(
    LinesRead.name -> "aof lines read",
    BytesRead.name -> "aof bytes read",
    LinesFiltered.name -> "aof lines filtered",
    BytesLost.name -> "aof bytes lost",
    FilesRead.name -> "aof files read",
    RecordsJoined.name -> "aof multi-line records"
  )

  def supported: Array[CustomMetric] = Array(
    new LinesReadMetric,
    new BytesReadMetric,
    new LinesFilteredMetric,
    new BytesLostMetric,
    new FilesReadMetric,
    new RecordsJoinedMetric)

  /** A task's figures so far. */
  def ofTask(counters: ReadCounters): Array[CustomTaskMetric] = Array(
    task(LinesRead, counters.linesRead.value),
    task(BytesRead, counters.bytesRead.value),
    task(LinesFiltered, counters.linesFiltered.value),
    task(BytesLost, counters.bytesLost.value),
    task(FilesRead, counters.filesRead.value),
    task(RecordsJoined, counters.recordsJoined.value)
  )

  private def task(definition: MetricDefinition, figure: Long): CustomTaskMetric =
    new CustomTaskMetric {
      override def name(): String = definition.name
      override def value(): Long = figure
    }
}
