package com.hx.spark.sql.connector.aof.backlog

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.plan.News

/**
 * Bytes and seconds behind: the backlog, and the age of its oldest byte, dated by the file's
 * last write and by the first trigger that saw the file past the position.
 */
class SourceMetricsSuite extends AnyFunSuite {
  private val minute = 60000L

  private def meta(ino: Long, size: Long, modifiedMs: Long) =
    FileMeta(
      s"/logs/$ino.log",
      FileKey(1, ino),
      size,
      size,
      Fingerprint.Empty,
      None,
      modifiedMs = modifiedMs)

  private def at(positions: (Long, Long)*) = AofOffset(
    Map("h" -> HostOffsets(
      positions.size.toLong,
      positions.map { case (ino, pos) =>
        s"f$ino" -> FileOffset(s"/logs/$ino.log", FileKey(1, ino), ino, 0L, pos, Fingerprint.Empty)
      }.toMap)))

  private def news(files: FileMeta*) = News(Map("h" -> files))

  // (what, the triggers: (time, the file's size and last write, the position read to), expected
  // seconds behind at the last)
  private val cases: Seq[(String, Seq[(Long, (Long, Long), Long)], Long)] = Seq(
    ("read to its end: 0", Seq((10 * minute, (100L, 9 * minute), 100L)), 0L),
    (
      "a rotated file not read: since its last write",
      Seq((10 * minute, (100L, 4 * minute), 40L)),
      360L),
    (
      "a file written all the time, read behind: since the trigger that first saw it past",
      Seq(
        (1 * minute, (100L, 1 * minute), 0L),
        (2 * minute, (200L, 2 * minute), 50L),
        (3 * minute, (300L, 3 * minute), 150L),
        (4 * minute, (400L, 4 * minute), 250L)),
      60L),
    (
      "read past what a trigger saw: dated by the next",
      Seq(
        (1 * minute, (100L, 1 * minute), 0L),
        (2 * minute, (200L, 2 * minute), 100L),
        (3 * minute, (300L, 3 * minute), 100L)),
      60L),
    (
      "cut shorter (copytruncate): dated from the cut on",
      Seq(
        (1 * minute, (500L, 1 * minute), 0L),
        (2 * minute, (10L, 2 * minute), 0L),
        (5 * minute, (30L, 2 * minute), 0L)),
      180L)
  )

  cases.foreach { case (what, triggers, expected) =>
    test(what) {
      val times = new WriteTimes
      val figures = triggers.map { case (now, (size, modified), pos) =>
        val r = news(meta(1, size, modified))
        times.observe(r, at(1L -> pos), now)
        SourceMetrics.of(at(1L -> pos), r, times, now)
      }
      assert(figures.last("secondsBehindLatest") === expected)
      assert(figures.last("secondsBehindLatest.h") === expected)
      val (_, (size, _), pos) = triggers.last
      assert(figures.last("bytesBehindLatest") === size - pos)
    }
  }

  test("the oldest of a host's files, the oldest host in all; an unknown write time is ignored") {
    val times = new WriteTimes
    val r = News(
      Map(
        "h" -> Seq(meta(1, 100, 9 * minute), meta(2, 100, 5 * minute), meta(3, 100, 0L)),
        "g" -> Seq(meta(4, 100, 8 * minute))))
    val figures = SourceMetrics.of(at(1L -> 0L, 2L -> 0L, 3L -> 100L), r, times, 10 * minute)
    assert(figures("secondsBehindLatest.h") === 300L)
    assert(figures("secondsBehindLatest.g") === 120L)
    assert(figures("secondsBehindLatest") === 300L)
    assert(figures("bytesBehindLatest") === 300L)
  }

  test("the gauges' names are the figures' own, without working the figures out") {
    val r = News(Map("h" -> Seq(meta(1, 100, minute))), latest = Map("g" -> Nil))
    val figures = SourceMetrics.of(at(1L -> 0L), r, new WriteTimes, minute)
    assert(SourceMetrics.names(r) === figures.keySet)
  }
}
