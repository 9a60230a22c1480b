package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.connector.read.streaming.ReadLimit

/**
 * `bytes.max` (per file) and `batch.bytes.max` (per micro-batch) as a read limit of the source's
 * own: Spark's row and file limits mean other things, and Spark 3 has no byte limit. Spark passes
 * it back under `AvailableNow` too; `Trigger.Once` replaces it with `ReadAllAvailable`.
 */
final case class ReadMaxBytes(perFile: Option[Long], perBatch: Option[Long]) extends ReadLimit {
  // Spark names it in its warning that Trigger.Once ignores it.
  override def toString: String =
    s"bytes.max=${perFile.getOrElse("none")}, batch.bytes.max=${perBatch.getOrElse("none")}"
}
