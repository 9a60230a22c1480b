package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}

class RangesSuite extends AnyFunSuite {
  private val key = FileKey(1L, 2L)

  private def offset(serial: Long, first: Long, pos: Long): AofOffset = {
    val file = FileOffset("/l/a", key, serial, first, pos, Fingerprint.Empty)
    AofOffset(Map("h" -> HostOffsets(serial + 1, Map(file.fileId -> file))))
  }

  private def spans(start: AofOffset, end: AofOffset): Seq[(Long, Long)] =
    Ranges.between(start, end).map(r => (r.from, r.until))

  test("a tracked file is read from the start offset's position") {
    assert(spans(offset(0, 0, 100), offset(0, 0, 250)) === Seq((100L, 250L)))
  }

  test("a file new in this batch is read from where the query first saw it") {
    assert(spans(AofOffset.Empty, offset(0, 40, 90)) === Seq((40L, 90L)))
  }

  test("a replaced file (new serial) is read from 0, the old one not at all") {
    assert(spans(offset(0, 0, 500), offset(1, 0, 80)) === Seq((0L, 80L)))
  }

  test("nothing to read when the position did not move or went back (C4)") {
    assert(spans(offset(0, 0, 100), offset(0, 0, 100)).isEmpty)
    assert(spans(offset(0, 0, 300), offset(0, 0, 200)).isEmpty)
  }

  test("a long range is one range, on its host: tasks cut it") {
    val ranges = Ranges.between(offset(0, 0, 100), offset(0, 0, 2600))
    assert(ranges.map(r => (r.host, r.from, r.until)) === Seq(("h", 100L, 2600L)))
  }

  test("ranges past 2 GiB keep their positions") {
    val big = 3L << 30
    assert(spans(offset(0, 0, big), offset(0, 0, big + 10)) === Seq((big, big + 10)))
  }

  test("a host's files come in the order they were found: the rest of a rotated file first") {
    // The new file's inode sorts before the old one's: its lines were written after.
    val rotated = FileOffset("/l/a.1", FileKey(1L, 900L), 3, 0, 500, Fingerprint.Empty)
    val current = FileOffset("/l/a", FileKey(1L, 100L), 4, 0, 70, Fingerprint.Empty)
    val start =
      AofOffset(Map("h" -> HostOffsets(4, Map(rotated.fileId -> rotated.copy(pos = 300)))))
    val end =
      AofOffset(Map("h" -> HostOffsets(5, Seq(current, rotated).map(f => f.fileId -> f).toMap)))
    val ranges = Ranges.between(start, end)
    assert(
      ranges.map(r => (r.path, r.from, r.until)) === Seq(("/l/a.1", 300L, 500L), ("/l/a", 0L, 70L)))
    val tasks = Tasks.deal(ranges ++ ranges.map(_.copy(host = "g")), _ => 1, 1L, 0L)
    assert(
      tasks.map(_.map(r => (r.host, r.path))) === Seq(
        Seq("g" -> "/l/a.1", "g" -> "/l/a"),
        Seq("h" -> "/l/a.1", "h" -> "/l/a")))
  }
}
