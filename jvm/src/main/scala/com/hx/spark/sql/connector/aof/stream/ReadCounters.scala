package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.SparkContext
import org.apache.spark.util.LongAccumulator

/**
 * What tasks report back to the driver's metrics: bytes they could not read, lines they cut,
 * lines (or records) `include.lines` and `exclude.lines` dropped, lines not of the `format`.
 */
final class ReadCounters private (
    val bytesLost: LongAccumulator,
    val linesTruncated: LongAccumulator,
    val linesFiltered: LongAccumulator,
    val linesMalformed: LongAccumulator)
    extends Serializable

object ReadCounters {
  def register(sc: SparkContext): ReadCounters =
    new ReadCounters(
      sc.longAccumulator("aof bytes lost"),
      sc.longAccumulator("aof lines truncated"),
      sc.longAccumulator("aof lines filtered"),
      sc.longAccumulator("aof lines malformed")
    )
}
