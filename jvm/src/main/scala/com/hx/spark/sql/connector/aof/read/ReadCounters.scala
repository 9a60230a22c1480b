package com.hx.spark.sql.connector.aof.read

import org.apache.spark.SparkContext
import org.apache.spark.util.LongAccumulator

/**
 * What tasks report back to the driver's metrics: rows, bytes and files read, multi-line records
 * joined, bytes they could not read, lines they cut, lines (or records) `include.lines` and
 * `exclude.lines` dropped, lines not of the `format`, lines with bytes not of the `encoding`.
 * In a task, each holds that task's own figures: the Spark UI's ([[ScanMetrics]]).
 */
final class ReadCounters private (
    val linesRead: LongAccumulator,
    val bytesRead: LongAccumulator,
    val filesRead: LongAccumulator,
    val recordsJoined: LongAccumulator,
    val bytesLost: LongAccumulator,
    val linesTruncated: LongAccumulator,
    val linesFiltered: LongAccumulator,
    val linesMalformed: LongAccumulator,
    val linesInvalidEncoding: LongAccumulator)
    extends Serializable

object ReadCounters {
  def register(sc: SparkContext): ReadCounters =
    new ReadCounters(
      // Shown by the scan's metrics in the Spark UI: not named, so not shown twice.
      sc.longAccumulator,
      sc.longAccumulator,
      sc.longAccumulator,
      sc.longAccumulator,
      sc.longAccumulator("aof bytes lost"),
      sc.longAccumulator("aof lines truncated"),
      sc.longAccumulator("aof lines filtered"),
      sc.longAccumulator("aof lines malformed"),
      sc.longAccumulator("aof lines of invalid encoding")
    )
}
