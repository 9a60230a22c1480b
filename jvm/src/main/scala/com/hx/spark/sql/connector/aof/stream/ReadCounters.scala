package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.SparkContext
import org.apache.spark.util.LongAccumulator

/**
 * What tasks report back to the driver's metrics: bytes they could not read, lines they cut,
 * lines (or records) `include.lines` and `exclude.lines` dropped, lines not of the `format`,
 * lines with bytes not of the `encoding`.
 */
final class ReadCounters private (
    val bytesLost: LongAccumulator,
    val linesTruncated: LongAccumulator,
    val linesFiltered: LongAccumulator,
    val linesMalformed: LongAccumulator,
    val linesInvalidEncoding: LongAccumulator)
    extends Serializable

object ReadCounters {
  def register(sc: SparkContext): ReadCounters =
    new ReadCounters(
      sc.longAccumulator("aof bytes lost"),
      sc.longAccumulator("aof lines truncated"),
      sc.longAccumulator("aof lines filtered"),
      sc.longAccumulator("aof lines malformed"),
      sc.longAccumulator("aof lines of invalid encoding")
    )
}
