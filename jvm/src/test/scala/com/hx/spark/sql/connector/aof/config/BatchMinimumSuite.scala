package com.hx.spark.sql.connector.aof.config

import org.scalatest.funsuite.AnyFunSuite

/** `batch.bytes.min` and `batch.wait.max`: which triggers are worth a micro-batch. */
class BatchMinimumSuite extends AnyFunSuite {
  private val minimum = BatchMinimum(bytes = 1000L, waitMaxMs = 60000L)
  private val last = 1795780378000L

  // (new bytes, the last batch's trigger, now, worth a batch, why)
  private val cases = Seq(
    (999L, Some(last), last + 1000L, false, "fewer bytes, soon after the last batch"),
    (0L, Some(last), last + 59999L, false, "nothing new, just before the wait is over"),
    (1000L, Some(last), last + 1000L, true, "the minimum exactly"),
    (5000L, Some(last), last, true, "more than the minimum, at once"),
    (999L, Some(last), last + 60000L, true, "the wait over, to the millisecond"),
    (1L, Some(last), last + 3600000L, true, "long after: what there is"),
    (1L, None, last, true, "no batch yet (or an offset without its time): nothing to wait from"),
    (1L, Some(last), last - 1L, true, "a last batch ahead of the clock: not waited for")
  )

  cases.foreach { case (bytes, lastBatch, now, worth, why) =>
    test(s"$why: ${if (worth) "a batch" else "no batch"}") {
      assert(minimum.worth(bytes, lastBatch, now) === worth)
    }
  }
}
