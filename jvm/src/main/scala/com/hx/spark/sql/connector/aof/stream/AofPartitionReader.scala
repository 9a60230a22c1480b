package com.hx.spark.sql.connector.aof.stream

import java.nio.file.Paths

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.PartitionReader

/** Reads a task's ranges one after the other, on the host that holds their files. */
final class AofPartitionReader(
    partition: AofInputPartition,
    lineLengthMax: Int,
    failOnDataLoss: Boolean,
    counters: ReadCounters)
    extends PartitionReader[InternalRow] {
  private val here = ExecutorHost.current
  if (here != partition.host) {
    throw new IllegalStateException(
      s"aof: a task for files of host ${partition.host} ran on host $here, which cannot read " +
        "that host's files. Raise spark.locality.wait (for example to 30s) so that tasks wait " +
        "for their own host, and make sure that host has a live executor.")
  }

  private val directory = Paths.get(partition.directory)
  private val ranges = partition.ranges.iterator
  private var current: Option[FileRangeReader] = None

  override def next(): Boolean = {
    while (!current.exists(_.next())) {
      current.foreach(_.close())
      current = None
      if (!ranges.hasNext) return false
      val range = ranges.next()
      current = Some(new FileRangeReader(range, directory, lineLengthMax, failOnDataLoss, counters))
    }
    true
  }

  override def get(): InternalRow = current.get.get()

  override def close(): Unit = current.foreach(_.close())
}
