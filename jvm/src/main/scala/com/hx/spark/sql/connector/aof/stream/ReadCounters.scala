package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.SparkContext
import org.apache.spark.util.LongAccumulator

/** What tasks report back to the driver's metrics: bytes they could not read, lines they cut. */
final class ReadCounters private (
    val bytesLost: LongAccumulator,
    val linesTruncated: LongAccumulator)
    extends Serializable

object ReadCounters {
  def register(sc: SparkContext): ReadCounters =
    new ReadCounters(
      sc.longAccumulator("aof bytes lost"),
      sc.longAccumulator("aof lines truncated"))
}
