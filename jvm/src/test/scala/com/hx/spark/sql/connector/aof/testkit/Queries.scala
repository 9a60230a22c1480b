package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.Path

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.streaming.{StreamingQuery, Trigger}
import org.scalatest.Assertions._

/** Starting AOF queries into a parquet sink, and checking what the sink holds. */
object Queries {

  def start(
      spark: SparkSession,
      pathPattern: String,
      checkpoint: Path,
      out: Path,
      options: Map[String, String] = Map.empty,
      trigger: Trigger = Trigger.ProcessingTime(0L)): StreamingQuery =
    spark.readStream
      .format("aof")
      .options(options)
      .load(pathPattern)
      .writeStream
      .format("parquet")
      .option("checkpointLocation", checkpoint.toString)
      .trigger(trigger)
      .start(out.toString)

  /**
   * `processAllAvailable` with a deadline: a broken source fails the test instead of hanging.
   * Called twice: the first call can return on a trigger that looked for data before it was
   * called, and found none then; the second waits for one that looked after.
   */
  def drain(query: StreamingQuery, timeoutMs: Long = 120000): Unit = {
    @volatile var error: Option[Throwable] = None
    val t = new Thread(() =>
      try {
        query.processAllAvailable()
        query.processAllAvailable()
      } catch { case e: Throwable => error = Some(e) })
    t.start()
    t.join(timeoutMs)
    if (t.isAlive) {
      query.stop()
      fail(s"query did not catch up within $timeoutMs ms")
    }
    error.foreach(e => throw e)
  }

  /**
   * A query with `options` on `dir/app-*.log` while a writer appends, then stopped and started
   * again on its checkpoint after more lines: every line is in `out` exactly once.
   */
  def assertOnceAcrossRestart(
      spark: SparkSession,
      dir: Path,
      checkpoint: Path,
      out: Path,
      options: Map[String, String]): Unit = {
    def run() = start(spark, s"$dir/app-.*\\.log", checkpoint, out, options)
    val writer = new LogWriter(dir.resolve("app-a.log"), "a", 2000).start()
    val query = run()
    val ids = writer.join()
    drain(query)
    query.stop()
    val more = LogWriter.append(dir.resolve("app-a.log"), (1 to 300).map(n => s"b-$n"))
    val again = run()
    drain(again)
    again.stop()
    assertExactlyOnce(spark, out, ids ++ more)
  }

  def rows(spark: SparkSession, out: Path): Seq[Row] =
    spark.read.parquet(out.toString).select("value", "host", "path", "offset", "file_id").collect()

  /** Every expected id appears exactly once, every line whole, and line ids are unique. */
  def assertExactlyOnce(spark: SparkSession, out: Path, expectedIds: Seq[String]): Unit =
    assertExactlyOnce(rows(spark, out), expectedIds)

  def assertExactlyOnce(all: Seq[Row], expectedIds: Seq[String]): Unit = {
    val ids = all.map(_.getString(0).takeWhile(_ != ' '))
    val counts = ids.groupBy(identity).map { case (id, seen) => id -> seen.size }
    val duplicated = expectedIds.filter(id => counts.getOrElse(id, 0) > 1)
    val missing = expectedIds.filterNot(counts.contains).take(10)
    val unexpected = counts.keySet.diff(expectedIds.toSet).take(10)
    val twice = duplicated.size // asserted as a number: the failure would print every id
    assert(twice == 0, s"ids read more than once, ${whence(all, duplicated)}")
    assert(missing.isEmpty, s"ids never read, e.g. $missing")
    assert(unexpected.isEmpty, s"ids never written, e.g. $unexpected")
    assert(all.length === expectedIds.size)
    val partial = all.map(_.getString(0)).filterNot(v => v.endsWith(" end") || v.endsWith(" line"))
    assert(partial.isEmpty, s"partial lines emitted: ${partial.take(5).toList}")
    val lineIds = all.map(r => (r.getString(1), r.getString(4), r.getLong(3)))
    assert(lineIds.distinct.length === lineIds.length, "(host, file_id, offset) is not unique")
  }

  /** Where the first and last of `ids` were read from, each time: what a failure needs to say. */
  private def whence(all: Seq[Row], ids: Seq[String]): String = {
    val ends = (ids.headOption ++ ids.lastOption).toSet
    val from = all.filter(r => ends(r.getString(0).takeWhile(_ != ' '))).map { r =>
      s"${r.getString(0).takeWhile(_ != ' ')} at ${r.getString(2)} (file ${r.getString(4)}) " +
        s"offset ${r.getLong(3)}"
    }
    s"from ${ids.headOption.getOrElse("")} to ${ids.lastOption.getOrElse("")}: " +
      from.sorted.mkString("; ")
  }
}
