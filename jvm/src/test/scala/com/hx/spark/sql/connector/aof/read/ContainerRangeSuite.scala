package com.hx.spark.sql.connector.aof.read

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import scala.collection.mutable.ArrayBuffer
import scala.util.Random

import org.apache.commons.codec.digest.DigestUtils.md5Hex
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.files.container.{LineChunks, LineFormat}
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.records.{BatchCuts, RecordEnds, RecordRule}
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/**
 * A container runtime's file read in ranges that end where the node says they may: every
 * message once, whole, at its first chunk's offset, however the ranges fall and however the
 * two streams' chunks interleave.
 */
class ContainerRangeSuite extends AnyFunSuite with SparkTestKit {
  private val Chunk = 16 // the runtime's split, small so that many messages split

  private case class Row(value: String, offset: Long, stream: String)

  /** Two streams' messages, their chunks interleaved at random, as the runtime's writers do. */
  private def written(format: LineFormat, random: Random): (String, Seq[Row]) = {
    def messages(stream: String) = Seq.tabulate(40) { n =>
      s"$stream $n " + random.alphanumeric.take(random.nextInt(3 * Chunk)).mkString
    }
    val all = Map("stdout" -> messages("stdout"), "stderr" -> messages("stderr"))
    val pending = all.map { case (s, ms) => s -> ms.map(m => m.grouped(Chunk).toList).toBuffer }
    val done = scala.collection.mutable.Map("stdout" -> 0, "stderr" -> 0)
    val text = new StringBuilder
    val rows = ArrayBuffer.empty[Row]
    val firsts = scala.collection.mutable.Map.empty[String, Long]
    while (pending.values.exists(_.nonEmpty)) {
      val s = random.shuffle(pending.filter(_._2.nonEmpty).keys.toList).head
      val chunks = pending(s).head
      val last = chunks.size == 1
      firsts.getOrElseUpdate(s, text.length.toLong)
      text ++= line(format, s, chunks.head, last)
      if (last) {
        rows += Row(all(s)(done(s)), firsts.remove(s).get, s)
        done(s) += 1
        pending(s).remove(0)
      } else pending(s)(0) = chunks.tail
    }
    // Rows are told by their offsets; completed ones come in order of their last chunks.
    text.toString -> rows.toList
  }

  private def line(format: LineFormat, stream: String, chunk: String, last: Boolean): String =
    format match {
      case LineFormat.Docker =>
        val log = chunk + (if (last) "\\n" else "")
        s"""{"log":"$log","stream":"$stream","time":"2026-11-28T10:00:00.000000001Z"}""" + "\n"
      case _ => s"2026-11-28T10:00:00.000000001Z $stream ${if (last) "F" else "P"} $chunk\n"
    }

  private def rule(format: LineFormat, continuation: Option[String]) =
    RecordRule(continuation, patternStarts = false, 1 << 20, 2000L, 1 << 20, None, format)

  private def read(
      file: Path,
      format: LineFormat,
      from: Long,
      until: Long,
      continuation: Option[String] = None): Seq[Row] = {
    val bytes = Files.readAllBytes(file)
    val head = Fingerprint(math.min(1024, bytes.length), md5Hex(bytes.take(1024)))
    val range = FileRange("h", file.toString, FileKey.of(file), "1:1:0", from, until, head)
    val reader = new FileRangeReader(
      range,
      SourceFiles(file.getParent, ".*"),
      ReadSettings(grouping = Some(rule(format, continuation))),
      false,
      ReadCounters.register(spark.sparkContext))
    val batch = new LineBatch(capacity = 5, streamNames = LineChunks.RuntimeStreams)
    val rows = ArrayBuffer.empty[Row]
    try {
      while (reader.nextBatch(batch)) {
        (0 until batch.columns.numRows).foreach { i =>
          val r = batch.columns.getRow(i)
          rows += Row(r.getUTF8String(0).toString, r.getLong(3), r.getUTF8String(6).toString)
        }
      }
    } finally reader.close()
    rows.toList
  }

  /** Where the node lets ranges end: every record start it reports, from each floor in turn. */
  private def cuts(
      file: Path,
      format: LineFormat,
      continuation: Option[String] = None,
      window: Long = 64L): Seq[Long] = {
    val channel = FileChannel.open(file)
    try {
      val size = Files.size(file)
      Iterator
        .iterate(Option(0L)) {
          case Some(floor) =>
            val ends =
              RecordEnds.scan(
                channel,
                floor,
                size,
                rule(format, continuation),
                true,
                Some(window),
                BatchCuts.Any)
            Some(ends.recordEnd).filter(_ > floor)
          case None => None
        }
        .takeWhile(_.isDefined)
        .flatten
        .toList
    } finally channel.close()
  }

  Seq(LineFormat.Cri, LineFormat.Docker).foreach { format =>
    test(s"${format.name}: ranges cut where the node says hold every message once, joined") {
      (1 to 20).foreach { seed =>
        val random = new Random(seed)
        val (text, rows) = written(format, random)
        val file = Files.write(newDir("logs").resolve("0.log"), text.getBytes(UTF_8))
        val ends = cuts(file, format)
        assert(ends.last === text.length, s"seed $seed")
        val read = ends.zip(ends.tail).flatMap { case (a, b) => this.read(file, format, a, b) }
        assert(read.sortBy(_.offset) === rows.sortBy(_.offset), s"seed $seed")
        assert(this.read(file, format, 0L, text.length) === rows, s"seed $seed")
      }
    }
  }

  private val Traces = Some("^\\s") // a stack trace's continuation lines

  /** The lines' offsets, and the file holding them. */
  private def written(lines: Seq[String]): (Seq[Long], Path) =
    lines.scanLeft(0L)(_ + _.length) ->
      Files.write(newDir("logs").resolve("0.log"), lines.mkString.getBytes(UTF_8))

  /** Where the node lets ranges of stack traces end, each cut it reports, and their records. */
  private def traces(file: Path): (Seq[Long], Seq[Row]) = {
    val ends = cuts(file, LineFormat.Cri, Traces, window = 1L)
    ends -> ends.zip(ends.tail).flatMap { case (a, b) => read(file, LineFormat.Cri, a, b, Traces) }
  }

  test("a stack trace printed in chunks is one record, whatever the other stream prints") {
    val lines = Seq(
      "stdout F GET /a",
      "stderr P Exception in ",
      "stdout P GET /long",
      "stderr F thread main",
      "stdout F  and more", // a continuation of stdout's chunks, not of the trace
      "stderr F \tat A.run",
      "stderr F \tat B.call",
      "stdout F GET /b",
      "stderr F \tat C.main",
      "stdout F GET /c"
    ).map(l => s"2026-11-28T10:00:00Z $l\n")
    val (at, file) = written(lines)
    val expected = Seq(
      Row("GET /a", at(0), "stdout"),
      Row("Exception in thread main\n\tat A.run\n\tat B.call\n\tat C.main", at(1), "stderr"),
      Row("GET /long and more", at(2), "stdout"),
      Row("GET /b", at(7), "stdout"),
      Row("GET /c", at(9), "stdout")
    )
    // Ranges end only where no record goes on across: the trace spans all but its ends, the
    // last of which the file's flush makes one.
    val (ends, read) = traces(file)
    assert(ends === Seq(0L, at(1), at(9), at(10)))
    assert(read.sortBy(_.offset) === expected)
  }

  test("a stream's record is complete once the runtime's time passed it by the flush timeout") {
    val lines = Seq(
      "10:00:00Z stderr F Exception in main",
      "10:00:01Z stdout F GET /a",
      "10:00:02.5Z stdout F GET /b", // 2.5 s after the trace's last line: the trace is complete
      "10:00:03Z stderr F \tat late.continuation",
      "10:00:04Z stdout F GET /c"
    ).map(l => s"2026-11-28T$l\n")
    val (at, file) = written(lines)
    val (ends, read) = traces(file)
    assert(ends === Seq(0L, at(1), at(2), at(3), at(4), at(5)))
    val values = Seq("Exception in main", "GET /a", "GET /b", "\tat late.continuation", "GET /c")
    assert(read.map(_.value) === values)
    assert(this.read(file, LineFormat.Cri, 0L, at(5), Traces).sortBy(_.offset) === read)
  }

  test("a range read after the open tail of the file it continues: rows start where they start") {
    val dir = newDir("logs")
    val cri = (l: String) => s"2026-11-28T10:00:00Z $l\n"
    val renamed = Files.write(
      dir.resolve("0.log.1"),
      Seq("stdout F a", "stderr P b1", "stdout P c1").map(cri).mkString.getBytes(UTF_8))
    val next = Files.write(
      dir.resolve("0.log"),
      Seq("stdout F c2", "stderr F b2", "stdout F d").map(cri).mkString.getBytes(UTF_8))
    val lineA = cri("stdout F a").length.toLong
    val lineB = cri("stderr P b1").length.toLong
    def fileRange(file: Path, id: String, from: Long) = {
      val bytes = Files.readAllBytes(file)
      val head = Fingerprint(bytes.length, md5Hex(bytes))
      FileRange("h", file.toString, FileKey.of(file), id, from, bytes.length, head)
    }
    val range =
      fileRange(next, "1:2:1", 0L).copy(continues = Some(fileRange(renamed, "1:1:0", lineA)))
    val reader = new FileRangeReader(
      range,
      SourceFiles(dir, ".*"),
      ReadSettings(grouping = Some(rule(LineFormat.Cri, None))),
      false,
      ReadCounters.register(spark.sparkContext))
    // Rows of the two files come in batches of their own, each with its file's path and id.
    val batch = new LineBatch(capacity = 5, streamNames = LineChunks.RuntimeStreams)
    val rows = ArrayBuffer.empty[(String, String, String, Long)]
    try {
      while (reader.nextBatch(batch)) {
        (0 until batch.columns.numRows).foreach { i =>
          val r = batch.columns.getRow(i)
          val path = Paths.get(r.getUTF8String(2).toString).getFileName.toString
          rows += ((r.getUTF8String(0).toString, path, r.getUTF8String(4).toString, r.getLong(3)))
        }
      }
    } finally reader.close()
    val secondLine = cri("stdout F c2").length.toLong
    assert(
      rows.sortBy(r => (r._2, r._4)) === Seq(
        ("d", "0.log", "1:2:1", secondLine + cri("stderr F b2").length),
        ("b1b2", "0.log.1", "1:1:0", lineA),
        ("c1c2", "0.log.1", "1:1:0", lineA + lineB)))
  }
}
