package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.vectorized.ColumnarBatch

import com.hx.spark.sql.connector.aof.endpoint.{EndpointSpec, MisplacedTask, NodeName}
import com.hx.spark.sql.connector.aof.metrics.ExecutorReads
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.read.{
  FileRangeReader, JournalBatch, JournalRangeReader, LineBatch, RangeRows, ReadCounters
}

/** Reads a task's ranges one after the other, in batches, on the host that holds their files. */
final class AofPartitionReader(
    partition: AofInputPartition,
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    endpoint: EndpointSpec)
    extends PartitionReader[ColumnarBatch] {
  private val here = NodeName.current(endpoint.nodeNameEnv)
  if (here != partition.host) MisplacedTask.handOver(partition.host, here, endpoint)

  private val ranges = partition.ranges.iterator
  private var current: Option[RangeRows] = None
  private val rows = endpoint.read.journal match {
    case Some(journal) =>
      val batch = new JournalBatch
      (range: FileRange) =>
        RangeRows(batch.columns) {
          new JournalRangeReader(range, endpoint.files, journal, failOnDataLoss, counters, batch)
        }(_.nextBatch(partition.plannedAtMs))
    case None =>
      val batch = LineBatch.of(endpoint, partition.plannedAtMs)
      (range: FileRange) =>
        RangeRows(batch.columns) {
          FileRangeReader.of(range, endpoint, failOnDataLoss, counters)
        }(_.nextBatch(batch))
  }

  override def next(): Boolean = {
    while (!current.exists(_.next())) {
      current.foreach(_.close())
      current = None
      if (!ranges.hasNext) return false
      current = Some(rows(ranges.next()))
    }
    true
  }

  override def get(): ColumnarBatch = current.get.columns

  override def currentMetricsValues(): Array[CustomTaskMetric] = ScanMetrics.ofTask(counters)

  override def close(): Unit = {
    current.foreach(_.close())
    current = None
    ExecutorReads.add(endpoint.metaStore, counters.linesRead.value, counters.bytesRead.value)
  }
}
