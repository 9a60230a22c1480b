package com.hx.spark.sql.connector.aof.stream

import java.nio.file.{Files, Path}

import org.apache.spark.sql.Row
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{
  Logrotate, Queries, RecordWriter, Spark4Only, SparkTestKit
}
import com.hx.spark.sql.connector.aof.testkit.Queries.drain

/**
 * Multi-line records (Java stack traces among single lines) on a real Spark session: each
 * record exactly once, whole, at the offset of its first byte, however its pieces fall across
 * triggers, batch limits, restarts and rotations.
 */
@Spark4Only
class MultilineSuite extends AnyFunSuite with SparkTestKit {
  private val startRule = Map("multiline.start" -> "^r\\d+ ")
  private val continuationRule = Map("multiline.continuation" -> "^(\\s|Caused by:|java\\.)")
  // Never reached within a test: a record ends where the next one starts, so a writer held up
  // within a record on a busy machine cannot cut it in two.
  private val neverFlushed = "600000"
  // Where the test needs quiet files flushed (the copies of copytruncate): far above any stall
  // of a writer within a record, which would rightly end the record there; the test waits it out
  // once, after the last copy.
  private val flushMs = "10000"

  private def start(pattern: String, ckpt: Path, out: Path, options: Map[String, String]) =
    Queries.start(spark, pattern, ckpt, out, options)

  private def rows(out: Path): Seq[Row] =
    if (!Files.exists(out.resolve("_spark_metadata"))) Nil else Queries.rows(spark, out)

  /** Every expected record once and whole; its offset where its first byte was written. */
  private def assertRecords(
      all: Seq[Row],
      expected: Map[String, (String, Long)],
      offsets: Boolean = true): Unit = {
    val byId = all.groupBy(_.getString(0).takeWhile(_ != ' '))
    val twice = byId.filter(_._2.size > 1).keys.take(5)
    assert(twice.isEmpty, s"records read more than once, e.g. $twice")
    val missing = expected.keys.filterNot(byId.contains).take(5)
    assert(missing.isEmpty, s"records never read, e.g. $missing")
    val unexpected = byId.keySet.diff(expected.keySet).take(5)
    assert(unexpected.isEmpty, s"rows that are no record written: $unexpected")
    expected.foreach { case (id, (text, at)) =>
      val row = byId(id).head
      assert(row.getString(0) === text, s"record $id")
      if (offsets) assert(row.getLong(3) === at, s"offset of record $id")
    }
  }

  private def awaitRecords(out: Path, count: Int, query: StreamingQuery): Unit =
    eventually(s"$count records", timeoutMs = 120000) {
      query.exception.foreach(e => throw e)
      rows(out).size >= count
    }

  Seq(
    "a first-line regex" -> startRule,
    "a continuation regex, bytes.max and small tasks" ->
      (continuationRule ++ Map("bytes.max" -> "3000", "partition.bytes.max" -> "1000"))
  ).foreach { case (name, rule) =>
    test(s"records written in pieces across triggers, $name: each once and whole") {
      val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
      val writer = new RecordWriter(dir.resolve("app.log"), seed = 1)
      val options = rule + ("multiline.flush.timeout" -> neverFlushed)
      val query = start(s"$dir/app\\.log", ckpt, out, options)
      val expected = writer.write(1 to 300, pauseMs = 20)
      writer.write(301 to 301, pauseMs = 0) // its start ends r300; it stays pending itself
      writer.close()
      awaitRecords(out, expected.size, query)
      drain(query)
      query.stop()
      assert(query.recentProgress.count(_.numInputRows > 0) > 3, "all in a few batches")
      assertRecords(rows(out), expected)
    }
  }

  test("a restart in the middle of a record: the record is read whole after it, once") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val log = dir.resolve("app.log")
    val writer = new RecordWriter(log, seed = 2)
    // A pending record stays pending across the restart.
    val options = startRule + ("multiline.flush.timeout" -> neverFlushed)
    val before = writer.write(1 to 30, pauseMs = 0)
    val half = writer.record(33).split("\n")
    writer.append(half.take(3).mkString("", "\n", "\n"))
    val query = start(s"$dir/app\\.log", ckpt, out, options)
    awaitRecords(out, before.size, query)
    drain(query)
    query.stop()
    // r30's end is known only from r33's start line; r33 itself has not ended.
    assertRecords(rows(out), before)

    writer.append(half.drop(3).mkString("", "\n", "\n"))
    val r33 = Map("r33" -> (writer.record(33) -> Files.size(log))).map { case (id, (text, end)) =>
      id -> (text -> (end - text.length - 1))
    }
    val after = writer.write(34 to 40, pauseMs = 0)
    writer.close()
    val restarted = start(s"$dir/app\\.log", ckpt, out, options)
    val all = before ++ r33 ++ after - "r40" // r40 is the last record: it has not ended
    awaitRecords(out, all.size, restarted)
    drain(restarted)
    restarted.stop()
    assertRecords(rows(out), all)
  }

  test("logrotate copytruncate between records written in pieces: each record once and whole") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val log = dir.resolve("service.log")
    val writer = new RecordWriter(log, seed = 3)
    val rotate = new Logrotate(log, Seq("copytruncate"))
    val options = continuationRule + ("multiline.flush.timeout" -> flushMs)
    val query = start(s"$dir/service\\.log(\\.\\d+)?", ckpt, out, options)
    var expected = Map.empty[String, (String, Long)]
    (0 until 5).foreach { round =>
      expected ++= writer.write(round * 60 + 1 to round * 60 + 60, pauseMs = 20)
      // The writer's lock: logrotate copies and truncates between two records.
      writer.lock.lock()
      try rotate.rotate()
      finally writer.lock.unlock()
    }
    writer.close()
    awaitRecords(out, expected.size, query)
    drain(query)
    query.stop()
    // A record's offset is in the file it was read from: the copy, not the file written.
    assertRecords(rows(out), expected, offsets = false)
    // Each round's last record was still open when the file was copied: read from a copy.
    val pathOf = rows(out).map(r => r.getString(0).takeWhile(_ != ' ') -> r.getString(2)).toMap
    val copies = (1 to 5).map(n => s"$log.$n").toSet
    (1 to 5).map(round => s"r${round * 60}").foreach { id =>
      assert(copies.contains(pathOf(id)), s"$id read from ${pathOf(id)}, not a copy")
    }
    assert(pathOf.values.toSet.contains(log.toString))
  }
}
