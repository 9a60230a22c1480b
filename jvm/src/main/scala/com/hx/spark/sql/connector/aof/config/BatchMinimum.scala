package com.hx.spark.sql.connector.aof.config

/**
 * `batch.bytes.min` and `batch.wait.max`: whether a trigger's new bytes are worth a micro-batch,
 * as Spark's Kafka source decides with `minOffsetsPerTrigger` and `maxTriggerDelay`. Unlike
 * Kafka's, the wait counts from the last batch's trigger as the checkpoint keeps it, not from the
 * last trigger this driver saw: a restarted query does not wait a whole delay again, and a query
 * idle for long reads its next line at once.
 *
 * @param bytes     the fewest new bytes, over every host and file, worth a batch
 * @param waitMaxMs the longest a batch waits for them, from the last batch's trigger
 */
final case class BatchMinimum(bytes: Long, waitMaxMs: Long) {

  /**
   * @param newBytes    the bytes the trigger's plan would read
   * @param lastBatchMs when the last batch's trigger ran; None before a query's first batch,
   *                    which never waits (nothing to count from, and with `starting.offsets` =
   *                    latest its offsets are where the query starts), or in an offset written
   *                    by a version that did not keep the time
   * @param nowMs       the trigger's time
   */
  def worth(newBytes: Long, lastBatchMs: Option[Long], nowMs: Long): Boolean =
    // A last batch ahead of the clock (a clock set back, a driver moved to a host whose clock
    // is behind) counts as waited for: else batches would wait longer than `waitMaxMs`.
    newBytes >= bytes || lastBatchMs.forall(at => nowMs < at || nowMs - at >= waitMaxMs)
}
