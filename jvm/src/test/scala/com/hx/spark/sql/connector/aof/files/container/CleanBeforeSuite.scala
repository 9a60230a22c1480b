package com.hx.spark.sql.connector.aof.files.container

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.collection.mutable.ArrayBuffer
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.lines.{CountingChannel, LineEnding, LineReader}
import com.hx.spark.sql.connector.aof.files.records.{BatchCuts, RecordEnds, RecordRule, RecordScan}

/**
 * A runtime's messages without a multi-line pattern: a node finds where they end reading back
 * from the end ([[CleanBefore]]), and must report what reading every line from the driver's
 * position reports, on any file.
 */
class CleanBeforeSuite extends AnyFunSuite {
  private def rule(format: LineFormat) =
    RecordRule(None, patternStarts = true, 1 << 20, 1000L, 1 << 20, None, format)

  private def time(n: Int) = f"2026-11-28T10:00:${n % 60}%02d.${n % 1000}%03dZ"

  /** A line of `format`, or not of it (a line of another program, a bad time, a cut line). */
  private def line(format: LineFormat, random: Random, n: Int): String = {
    val stream = if (random.nextInt(4) == 0) "stderr" else "stdout"
    val partial = random.nextInt(3) == 0
    val message =
      random.alphanumeric.take(random.nextInt(if (random.nextInt(50) == 0) 140000 else 200))
    val end = if (random.nextInt(40) == 0) "\r\n" else "\n"
    random.nextInt(30) match {
      case 0 => s"plain text $message$end"
      case 1 => s"2026-13-28T10:00:00Z $stream F $message$end"
      case 2 => s"${time(n)} $stream$end"
      case _ if format == LineFormat.Cri =>
        s"${time(n)} $stream ${if (partial) "P" else "F"} $message$end"
      case _ =>
        val nl = if (partial) "" else "\\n"
        s"""{"log":"$message$nl","stream":"$stream","time":"${time(n)}"}$end"""
    }
  }

  /** Every clean position of `path` from 0 on, as a reader finds them. */
  private def cleanPositions(channel: FileChannel, format: LineFormat): Seq[Long] = {
    val lines = new LineReader(channel, 0, channel.size, rule(format).lineLimit)
    val join = rule(format).messages()
    val clean = ArrayBuffer(0L)
    while (lines.next()) {
      join.take(lines)
      if (join.isClean) clean += lines.lineEnd
    }
    clean.toSeq
  }

  private def withFile[T](content: String)(f: FileChannel => T): T = {
    val file: Path = Files.createTempFile("clean-", ".log")
    try {
      Files.write(file, content.getBytes(UTF_8))
      val channel = FileChannel.open(file)
      try f(channel)
      finally channel.close()
    } finally Files.deleteIfExists(file)
  }

  for (format <- Seq(LineFormat.Cri, LineFormat.Docker); seed <- 1 to 60) {
    test(s"reading back finds what reading forward finds: ${format.name}, seed $seed") {
      val random = new Random(seed)
      val count = random.nextInt(if (seed % 10 == 0) 3000 else 300)
      val bom = if (random.nextInt(10) == 0) "\uFEFF" else ""
      val cut = if (random.nextBoolean()) "2026-11-28T10:00:00Z stdout F no newline yet" else ""
      val content = bom + (0 until count).map(line(format, random, _)).mkString + cut
      withFile(content) { channel =>
        val positions = cleanPositions(channel, format)
        for (_ <- 1 to 5) {
          val floor = positions(random.nextInt(positions.size))
          val flushed = random.nextBoolean()
          val limits = BatchCuts(Seq.fill(random.nextInt(3))(1L + random.nextInt(100000)))
          val r = rule(format)
          val size = channel.size
          val expected = new RecordScan(channel, r, limits, LineEnding.Default)
            .forwards(floor, size, flushed, None, None)
          val found = RecordEnds.scan(channel, floor, size, r, flushed, None, limits)
          assert(found === expected, s"from $floor, flushed $flushed, $limits")
        }
      }
    }
  }

  test("a node reads the end of a long file of both streams, not the whole of it") {
    val random = new Random(7)
    val content = (0 until 60000).map(line(LineFormat.Cri, random, _)).mkString
    withFile(content) { underlying =>
      val channel = new CountingChannel(underlying)
      val size = channel.size
      val found =
        RecordEnds.scan(channel, 0L, size, rule(LineFormat.Cri), false, None, BatchCuts.Any)
      assert(found.recordEnd > size - 100000)
      assert(channel.bytesRead < size / 5, s"read ${channel.bytesRead} of $size bytes")
    }
  }
}
