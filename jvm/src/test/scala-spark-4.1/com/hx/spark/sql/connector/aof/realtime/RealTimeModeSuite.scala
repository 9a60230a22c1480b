package com.hx.spark.sql.connector.aof.realtime

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.nio.file.attribute.FileTime
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.locks.ReentrantLock

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{ForeachWriter, Row}
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException, Trigger}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.shim.RealTimeMode
import com.hx.spark.sql.connector.aof.testkit.{AppLogWriter, Logrotate, SparkTestKit}
import com.hx.spark.sql.connector.aof.testkit.Queries.assertExactlyOnce

/**
 * Real-time mode on a real session: lines reach a `foreach` writer while the batch that reads
 * them still runs, through the real logrotate, and a stop and restart from the checkpoint. A
 * batch stopped before it ends is read again from its start (Spark's real-time mode commits a
 * batch at its end): such lines come twice, with the same `(host, file_id, offset)`, so a sink
 * keyed by those holds each line once.
 */
class RealTimeModeSuite extends AnyFunSuite with SparkTestKit {
  import RealTimeModeSuite._

  /** @param batch shorter than Spark's least by default (5 s): a test spans several batches */
  private def start(
      name: String,
      path: String,
      checkpoint: Path,
      batch: String = "3 seconds",
      options: Map[String, String] = Map.empty): StreamingQuery = {
    spark.conf.set("spark.sql.streaming.realTimeMode.minBatchDuration", "1000")
    spark.readStream
      .format("aof")
      .options(options)
      .load(path)
      .select("value", "host", "path", "offset", "file_id")
      .writeStream
      .queryName(name)
      .outputMode("update") // real-time mode's only mode
      .foreach(new Collect(name))
      .option("checkpointLocation", checkpoint.toString)
      .trigger(Trigger.RealTime(batch))
      .start()
  }

  /** Rows as the writer saw them, once per `(host, file_id, offset)`, and how many came twice. */
  private def delivered(name: String): (Seq[Row], Int) = {
    val all = rows(name)
    val once = all.groupBy(r => (r.getString(1), r.getString(4), r.getLong(3))).values.map { seen =>
      assert(seen.map(_.getString(0)).distinct.size === 1, s"one id, two lines: $seen")
      seen.head
    }
    (once.toSeq.sortBy(r => (r.getString(4), r.getLong(3))), all.size - once.size)
  }

  private def append(file: Path, lines: Seq[String]): Unit =
    Files.write(file, lines.map(_ + "\n").mkString.getBytes(UTF_8), StandardOpenOption.APPEND)

  test("a line reaches the writer while the batch that reads it runs") {
    val dir = newDir("live")
    val log = Files.createFile(dir.resolve("app.log"))
    append(log, Seq("live-0 line"))
    // One batch longer than the test: no batch ends, so every line comes while it runs.
    val query = start("live", s"$dir/app\\.log", newDir("ckpt"), batch = "120 seconds")
    try {
      eventually("the first line delivered")(rows("live").nonEmpty)
      Seq(1, 2, 3).foreach { i =>
        append(log, Seq(s"live-$i line"))
        eventually(s"line $i delivered")(rows("live").exists(_.getString(0) == s"live-$i line"))
      }
      assert(query.recentProgress.isEmpty, "a batch ended")
    } finally query.stop()
    val (once, twice) = delivered("live")
    assert(once.map(_.getString(0)) === (0 to 3).map(i => s"live-$i line"))
    assert(twice === 0)
  }

  test("the progress counts the lines; Spark's real-time scan takes no figures of a source") {
    // What the SQL tab would sum: a source's metrics in the updates of each task that ended
    // (the source's own accumulators of lines and bytes have no name, so are not among them).
    val updates = new ConcurrentLinkedQueue[String]()
    val listener = new SparkListener {
      override def onTaskEnd(end: SparkListenerTaskEnd): Unit =
        end.taskInfo.accumulables.flatMap(_.name).filter(_.startsWith("aof ")).foreach(updates.add)
    }
    spark.sparkContext.addSparkListener(listener)
    val dir = newDir("figures")
    val log = Files.createFile(dir.resolve("app.log"))
    append(log, (1 to 500).map(n => s"figure-$n line"))
    val query = start("figures", s"$dir/app\\.log", newDir("ckpt"))
    try {
      eventually("a batch ended after every line") {
        rows("figures").size >= 500 &&
        query.recentProgress.exists(_.sources.head.metrics.get("linesRead").toLong >= 500)
      }
      assert(
        updates.isEmpty,
        "Spark's real-time scan now takes a source's metrics: say so in docs/operating.md " +
          s"and check them here: $updates")
    } finally {
      query.stop()
      spark.sparkContext.removeSparkListener(listener)
    }
  }

  test("this Spark runs the stream that has real-time mode; a byte limit is refused at start") {
    assert(RealTimeMode.inSpark)
    val dir = newDir("limit")
    Files.createFile(dir.resolve("app.log"))
    Seq("bytes.max" -> "1024", "batch.bytes.min" -> "1024").foreach { case (option, value) =>
      val query =
        start(s"limited-$option", s"$dir/app\\.log", newDir("ckpt"), options = Map(option -> value))
      val e = intercept[StreamingQueryException](query.awaitTermination(60000))
      assert(e.getMessage.contains(s"aof: $option bound micro-batches"), e.getMessage)
      assert(e.getMessage.contains("real-time mode"))
    }
  }

  test("a container runtime's format and the journal are refused at start, naming the trigger") {
    val dir = newDir("cri")
    Files.createFile(dir.resolve("0.log"))
    Seq("cri" -> s"$dir/0\\.log", "journald" -> s"$dir/.*\\.journal").foreach {
      case (format, path) =>
        val query = start(format, path, newDir("ckpt"), options = Map("format" -> format))
        val e = intercept[StreamingQueryException](query.awaitTermination(60000))
        assert(e.getMessage.contains(s"format '$format'"), e.getMessage)
        assert(e.getMessage.contains("processing-time trigger"), e.getMessage)
    }
  }

  test("multi-line records, line filters and ignore.older, as in a micro-batch") {
    val dir = newDir("records")
    val old = Files.createFile(dir.resolve("old.log"))
    append(old, Seq("2026-01-01 ERROR before the query"))
    Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(2, ChronoUnit.DAYS)))
    val log = Files.createFile(dir.resolve("app.log"))
    append(log, Seq("2026-11-27 ERROR first", "  at a", "  at b", "2026-11-27 DEBUG noise"))
    append(log, Seq("2026-11-27 INFO second"))
    val options = Map(
      "multiline.start" -> "^\\d{4}-",
      "multiline.flush.timeout" -> "300",
      "exclude.lines" -> "DEBUG",
      "ignore.older" -> "1h")
    val query = start("records", s"$dir/.*\\.log", newDir("ckpt"), options = options)
    def values = delivered("records")._1.map(_.getString(0))
    try {
      // The last record is whole once the file is quiet for the flush timeout.
      eventually("the first records")(values.size == 2)
      val ended = query.recentProgress.length
      eventually("a batch ended")(query.recentProgress.length > ended)
      append(old, Seq("2026-11-27 ERROR appended to the old file", "  at c"))
      append(log, Seq("2026-11-27 WARN third", "  at d", "2026-11-27 DEBUG more noise"))
      eventually("the later records")(values.size == 4)
    } finally query.stop()
    assert(
      values.toSet === Set(
        "2026-11-27 ERROR first\n  at a\n  at b",
        "2026-11-27 INFO second",
        "2026-11-27 ERROR appended to the old file\n  at c",
        "2026-11-27 WARN third\n  at d"))
  }

  private case class Mode(name: String, directives: Seq[String], pattern: String, pause: Boolean)
  private val modes = Seq(
    Mode("create", Seq("create"), "service\\.log(\\.\\d+)?", pause = false),
    Mode("copytruncate", Seq("copytruncate"), "service\\.log(\\.\\d+)?", pause = true),
    Mode("compress", Seq("create", "compress", "delaycompress"), "service\\.log.*", pause = false),
    // Rotated into another directory, which the path names too.
    Mode(
      "olddir",
      Seq("create", "olddir old", "createolddir"),
      "**/service\\.log(\\.\\d+)?",
      pause = false)
  )

  modes.foreach { mode =>
    test(s"logrotate ${mode.name} as batches end, as lines are read, and while stopped") {
      val name = s"rotated_${mode.name}"
      val dir = newDir(mode.name)
      val log = Files.createFile(dir.resolve("service.log"))
      val lock = new ReentrantLock()
      val writer = new AppLogWriter(log, mode.name, 1000, lock).start()
      val rotate = new Logrotate(log, mode.directives)
      val checkpoint = newDir("ckpt")
      // Rotations ordered by events, not by time: right after a batch ended, right after
      // lines were read in a batch, and while the query is stopped.
      def rotateAfter(what: String)(happened: => Boolean): Unit = {
        eventually(what)(happened)
        if (mode.pause) lock.lock()
        try rotate.rotate()
        finally if (mode.pause) lock.unlock()
      }
      def rotateWhile(query: StreamingQuery): Unit = {
        (1 to 2).foreach { _ =>
          val ended = query.recentProgress.length
          rotateAfter("a batch ended")(query.recentProgress.length > ended)
        }
        (1 to 2).foreach { _ =>
          val read = rows(name).size
          rotateAfter("lines read")(rows(name).size > read)
        }
      }
      val first = start(name, s"$dir/${mode.pattern}", checkpoint)
      try rotateWhile(first)
      finally first.stop()
      (1 to 2).foreach(_ => rotateAfter("lines written while stopped")(Files.size(log) > 0))
      val again = start(name, s"$dir/${mode.pattern}", checkpoint)
      val ids =
        try {
          rotateWhile(again)
          val written = writer.stop()
          eventually("every line delivered", 60000)(delivered(name)._1.size >= written.size)
          written
        } finally again.stop()
      assertExactlyOnce(delivered(name)._1, ids)
    }
  }
}

object RealTimeModeSuite {
  private val collected = new java.util.concurrent.ConcurrentHashMap[String, Queue]()
  private type Queue = ConcurrentLinkedQueue[Row]

  def rows(name: String): Seq[Row] =
    Option(collected.get(name)).fold(Seq.empty[Row])(_.asScala.toSeq)

  /** Keeps every row it is given, by query name: the suite's JVM runs the executors. */
  final class Collect(name: String) extends ForeachWriter[Row] {
    override def open(partitionId: Long, epochId: Long): Boolean = true
    override def process(row: Row): Unit =
      collected.computeIfAbsent(name, _ => new Queue()).add(row)
    override def close(errorCause: Throwable): Unit = ()
  }
}
