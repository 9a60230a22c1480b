package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.time.Clock

import org.apache.spark.sql.connector.read.streaming.{Offset, ReadLimit}
import org.apache.spark.sql.streaming.Trigger
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.AofScan
import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.testkit.{LogWriter, MovingClock, Queries, SparkTestKit}

/**
 * `batch.bytes.min` and `batch.wait.max` on real files, with the embedded ZooKeeper and the
 * nodes' endpoints: the stream made as Spark makes it, its triggers called as Spark calls them,
 * and its clock moved rather than waited for.
 */
class FewerBatchesSuite extends AnyFunSuite with SparkTestKit {
  private val line = 100 // bytes of each line written
  private val minimum = Map("batch.bytes.min" -> "10000", "batch.wait.max" -> "10m")
  private val minute = 60000L

  private def stream(
      dir: Path,
      checkpoint: Path,
      clock: Clock,
      more: Map[String, String] = Map.empty): AofMicroBatchStream = {
    val options =
      AofOptions.parse(Map("path" -> s"$dir/app\\.log") ++ minimum ++ more, Map.empty)
    spark // the session the scan finds active, as a query's would
    new AofScan(options, clock)
      .toMicroBatchStream(checkpoint.toString)
      .asInstanceOf[AofMicroBatchStream]
  }

  private def write(dir: Path, lines: Int): Unit =
    Files.write(
      dir.resolve("app.log"),
      (("x" * (line - 1) + "\n") * lines).getBytes(UTF_8),
      StandardOpenOption.CREATE,
      StandardOpenOption.APPEND)

  /** A trigger, as Spark calls it under a processing-time trigger unless given `limit`. */
  private def trigger(s: AofMicroBatchStream, start: Offset, limit: Option[ReadLimit] = None) =
    s.latestOffset(start, limit.getOrElse(s.getDefaultReadLimit)).asInstanceOf[AofOffset]

  /** The bytes the batch from `start` to `end` reads, by its partitions. */
  private def read(s: AofMicroBatchStream, start: Offset, end: Offset): Long =
    s.planInputPartitions(start, end)
      .toSeq
      .map { case p: AofInputPartition =>
        p.ranges.map(r => r.until - r.from).sum
      }
      .sum

  /**
   * A new query's first batch, over the 20 lines written before it, committed. Its trigger has
   * no batch to count from: it reads what there is, at once.
   */
  private def firstBatch(s: AofMicroBatchStream): AofOffset = {
    val first = trigger(s, s.initialOffset())
    assert(read(s, AofOffset.Empty, first) === 20 * line)
    s.commit(first)
    first
  }

  /** A first batch, committed, and the stream stopped: a query that ran, and left its offsets. */
  private def ranOnce(dir: Path, checkpoint: Path, clock: MovingClock): AofOffset = {
    write(dir, 20)
    val s = stream(dir, checkpoint, clock)
    try firstBatch(s)
    finally s.stop()
  }

  test("fewer new bytes than batch.bytes.min run no batch until they are enough, or it waited") {
    val (dir, checkpoint, clock) = (newDir("logs"), newDir("ckpt"), new MovingClock)
    write(dir, 20)
    val s = stream(dir, checkpoint, clock)
    try {
      val first = firstBatch(s)
      write(dir, 30)
      clock.advance(minute)
      assert(trigger(s, first) === first, "3000 bytes, of 10000: the same offset, no batch")
      write(dir, 70)
      clock.advance(minute)
      val second = trigger(s, first)
      assert(read(s, first, second) === 100 * line, "10000 bytes: a batch")
      s.commit(second)

      write(dir, 5)
      clock.advance(9 * minute)
      assert(trigger(s, second) === second, "9 minutes of 10 since the last batch")
      // Nothing written since that trigger: what it found is read once the wait is over.
      clock.advance(minute)
      val third = trigger(s, second)
      assert(read(s, second, third) === 5 * line)
      assert(third.plannedAtMs.exists(_ >= second.plannedAtMs.get + 10 * minute))
    } finally s.stop()
  }

  test("a restarted query waits what is left of the wait, from the batch its checkpoint ends") {
    val (dir, checkpoint, clock) = (newDir("logs"), newDir("ckpt"), new MovingClock)
    val first = ranOnce(dir, checkpoint, clock)
    write(dir, 5)
    clock.advance(6 * minute)
    val s = stream(dir, checkpoint, clock)
    try {
      // As Spark starts again: from the offset its log holds, parsed back.
      val start = s.deserializeOffset(first.json())
      assert(trigger(s, start) === start, "6 minutes since the last batch: 4 to wait, not 10")
      clock.advance(4 * minute)
      assert(read(s, start, trigger(s, start)) === 5 * line)
    } finally s.stop()
  }

  test("all there is to read counts, not a batch's bound: batch.bytes.max below it waits not") {
    val (dir, checkpoint, clock) = (newDir("logs"), newDir("ckpt"), new MovingClock)
    val first = ranOnce(dir, checkpoint, clock)
    write(dir, 150)
    clock.advance(minute)
    val s = stream(dir, checkpoint, clock, Map("batch.bytes.max" -> "4000"))
    try {
      val start = s.deserializeOffset(first.json())
      val second = trigger(s, start)
      assert(read(s, start, second) === 4000, "15000 bytes there: a batch, of 4000")
      s.commit(second)
      val third = trigger(s, second)
      assert(read(s, second, third) === 4000, "11000 bytes there: a batch, of 4000")
      s.commit(third)
      assert(trigger(s, third) === third, "7000 bytes there, of 10000: no batch")
    } finally s.stop()
  }

  test("Trigger.AvailableNow and Trigger.Once read what there is at once") {
    val (dir, checkpoint, clock) = (newDir("logs"), newDir("ckpt"), new MovingClock)
    val first = ranOnce(dir, checkpoint, clock)
    write(dir, 5)
    val availableNow = stream(dir, checkpoint, clock)
    try {
      availableNow.prepareForTriggerAvailableNow()
      val start = availableNow.deserializeOffset(first.json())
      assert(read(availableNow, start, trigger(availableNow, start)) === 5 * line)
    } finally availableNow.stop()
    val once = stream(dir, checkpoint, clock)
    try {
      val start = once.deserializeOffset(first.json())
      // Spark's limit under Trigger.Once, in place of the source's own.
      val end = trigger(once, start, Some(ReadLimit.allAvailable()))
      assert(read(once, start, end) === 5 * line)
    } finally once.stop()
  }

  test("a query's batches wait for batch.bytes.min; AvailableNow on its checkpoint reads them") {
    val (dir, checkpoint, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val options = Map("batch.bytes.min" -> "1000000", "batch.wait.max" -> "1h")
    val ids = LogWriter.append(dir.resolve("app.log"), (1 to 50).map(n => s"a-$n"))
    val query = Queries.start(spark, s"$dir/app\\.log", checkpoint, out, options)
    try {
      Queries.drain(query)
      Queries.assertExactlyOnce(spark, out, ids)
      val more = LogWriter.append(dir.resolve("app.log"), (1 to 50).map(n => s"b-$n"))
      Queries.drain(query)
      Queries.assertExactlyOnce(spark, out, ids) // far fewer bytes than 1 MB, within the hour
      query.stop()

      val rest =
        Queries.start(spark, s"$dir/app\\.log", checkpoint, out, options, Trigger.AvailableNow())
      assert(rest.awaitTermination(120000), "AvailableNow did not stop by itself")
      Queries.assertExactlyOnce(spark, out, ids ++ more)
    } finally query.stop()
  }
}
