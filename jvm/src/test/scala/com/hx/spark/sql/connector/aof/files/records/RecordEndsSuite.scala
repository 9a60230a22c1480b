package com.hx.spark.sql.connector.aof.files.records

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.KnownFile
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.testkit.Polling

class RecordEndsSuite extends AnyFunSuite {
  private def ruleOf(bytesMax: Int = 1 << 20, continuation: Boolean = false) =
    if (continuation) RecordRule(Some("^ "), patternStarts = false, bytesMax, 1000L, 1 << 20, None)
    else RecordRule(Some("^r"), patternStarts = true, bytesMax, 1000L, 1 << 20, None)

  // Offsets: r1 a 0, " x" 5, r2 b 8, r3 c 13, " y" 18, " z" 21 (being written, no newline).
  private val text = "r1 a\n x\nr2 b\nr3 c\n y\n z"
  private val hundreds = Seq.tabulate(1000)(n => f"r$n%098d\n").mkString

  private case class Row(
      what: String,
      floor: Long,
      flushed: Boolean,
      end: Long,
      cuts: Seq[Long],
      rule: RecordRule = ruleOf(),
      window: Option[Long] = None,
      content: String = text,
      batchCuts: BatchCuts = BatchCuts.Any)

  // format: off
  private val table = Seq(
    Row("a record ends where the next one starts: the last may still grow", 0, flushed = false, 13, Seq(8)),
    Row("flushed, the last record ends with the last complete line", 0, flushed = true, 21, Seq(8)),
    Row("from the driver's position", 8, flushed = false, 13, Nil),
    Row("from the driver's position, flushed", 8, flushed = true, 21, Seq(13)),
    Row("the position is a record start, whatever its line", 5, flushed = false, 13, Seq(8)),
    Row("no start after the position: nothing complete yet", 13, flushed = false, 13, Nil),
    Row("a continuation regex finds the same records", 0, flushed = false, 13, Seq(8), ruleOf(continuation = true)),
    Row("a line that would pass multiline.bytes.max starts a record", 0, flushed = false, 18, Seq(5), ruleOf(bytesMax = 7)),
    Row("the scan stops at the first start past its window", 0, flushed = true, 8, Nil, window = Some(6)),
    Row("an empty file", 0, flushed = true, 0, Nil, content = ""),
    Row("no newline yet", 0, flushed = true, 0, Nil, content = "r1 a"),
    Row("cuts: the first start, then the last within 256 bytes, 512, ... of the floor", 0, flushed = false, 99900,
      Seq(100, 200, 500, 1000, 2000, 4000, 8100, 16300, 32700, 65500), content = hundreds),
    Row("cuts with a limit: the last start within it too", 0, flushed = false, 99900,
      Seq(100, 200, 300, 500, 1000, 2000, 4000, 8100, 16300, 32700, 65500), content = hundreds,
      batchCuts = BatchCuts(Seq(350)))
  )
  // format: on

  table.foreach { row =>
    test(row.what) {
      val file = Files.createTempFile("records-", ".log")
      try {
        Files.write(file, row.content.getBytes(UTF_8), StandardOpenOption.TRUNCATE_EXISTING)
        val channel = FileChannel.open(file)
        try {
          val found =
            RecordEnds.scan(
              channel,
              row.floor,
              channel.size,
              row.rule,
              row.flushed,
              row.window,
              row.batchCuts)
          assert((found.recordEnd, found.cuts) === ((row.end, row.cuts)))
        } finally channel.close()
      } finally Files.deleteIfExists(file)
    }
  }

  test("a node reports a file's last record once the file was quiet for the flush timeout") {
    val dir = Files.createTempDirectory("records-")
    val file = dir.resolve("app.log")
    try {
      val quick = ruleOf().copy(flushMs = 2000L)
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024, Some(quick))
      val written = System.currentTimeMillis()
      Files.write(file, "r1 a\n x\n".getBytes(UTF_8))
      val first = scanner.scan(Nil).head
      // Unless this machine took the whole timeout to scan once, the record is not flushed yet.
      if (System.currentTimeMillis() - written < quick.flushMs) assert(first.lineEnd === 0L)
      val asked = KnownFile(first.key, 0L, first.fingerprint)
      // Asked the same about the same stamp: the answer changes with time alone.
      Polling.eventually("the record flushed", 20000)(scanner.scan(Seq(asked)).head.lineEnd == 8)
      // Within a window, a file read from looks only that far; a file first seen, to its end.
      Files.write(file, "r2 b\nr3 c\n y\nr4 d\n".getBytes(UTF_8), StandardOpenOption.APPEND)
      val windowed = new DirectoryScanner(
        SourceFiles(dir, "app.*"),
        1024,
        Some(quick.copy(flushMs = 600000L, scanWindow = Some(6L))))
      assert(windowed.scan(Nil).head.lineEnd === 21L)
      assert(windowed.scan(Seq(asked)).head.lineEnd === 8L)
    } finally {
      Files.deleteIfExists(file)
      Files.deleteIfExists(dir)
    }
  }
}
