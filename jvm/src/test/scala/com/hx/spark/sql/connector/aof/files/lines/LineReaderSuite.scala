package com.hx.spark.sql.connector.aof.files.lines

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.{ISO_8859_1, UTF_8}
import java.nio.file.{Files, Path, StandardOpenOption}

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.lines.LineReaderSuite._

class LineReaderSuite extends AnyFunSuite {

  test("an empty file and empty ranges have no lines") {
    assert(lines("") === Nil)
    withFile("a\nbcdef\n") { f =>
      assert(read(f, 2, 2) === Read(Nil, incomplete = false))
      assert(read(f, 4, 4) === Read(Nil, incomplete = false))
      assert(read(f, 8, 8) === Read(Nil, incomplete = false))
    }
  }

  test("lines with offsets; an empty line is a line") {
    assert(lines("ab\n\ncd\n\n") === Seq((0L, "ab"), (3L, ""), (4L, "cd"), (7L, "")))
  }

  test("the partial last line is not emitted, and past the planned end it is incomplete") {
    withFile("ab\ncd") { f =>
      assert(read(f, 0, 3) === Read(Seq(Line(0, "ab")), incomplete = false))
      assert(read(f, 0, 5) === Read(Seq(Line(0, "ab")), incomplete = true, resumeAt = 3))
    }
  }

  test("CRLF loses one \\r; a lone \\r inside a line stays") {
    assert(lines("a\r\nb\rc\n\r\nd\r\r\n") === Seq((0L, "a"), (3L, "b\rc"), (7L, ""), (9L, "d\r")))
  }

  test("UTF-8 that is not valid is read as U+FFFD, and the lines that held it are counted") {
    // A lone continuation byte, an overlong '/', a surrogate, a sequence cut short, past U+10FFFF.
    val bad =
      Seq(Seq(0xff), Seq(0xc0, 0xaf), Seq(0xed, 0xa0, 0x80), Seq(0xe2, 0x82), Seq(0xf4, 0x90))
    val good = "caf\u00e9 \u65e5\u672c \ud83d\ude00 \u00ef\u00bb\u00bf"
    val text = bad.map(b => "x" + b.map(_.toChar).mkString + "y\n").mkString +
      new String(s"$good\n".getBytes(UTF_8), ISO_8859_1)
    withFile(text) { f =>
      val channel = FileChannel.open(f)
      try {
        val reader = new LineReader(channel, 0, channel.size(), 100)
        val values = Iterator
          .continually(reader.next())
          .takeWhile(identity)
          .map { _ =>
            new String(reader.lineBytes, reader.lineStart, reader.lineLength, UTF_8)
          }
          .toList
        assert(values.init.forall(v => v.startsWith("x\ufffd") && v.endsWith("y")), values)
        assert(values.last === good)
        assert(reader.invalid === bad.size.toLong)
      } finally channel.close()
    }
  }

  test("a byte order mark at the file's head is not part of its first line; elsewhere it stays") {
    val bom = "\u00ef\u00bb\u00bf" // EF BB BF, as Latin-1 keeps them
    val utf8 = LineEnding.Default
    assert(lines(s"${bom}a\r\n${bom}b\n", ending = utf8) === Seq((0L, "a"), (6L, "\ufeffb")))
    assert(lines(s"$bom\nc\n", ending = utf8) === Seq((0L, ""), (4L, "c")))
    withFile(s"${bom}abcdef\n") { f =>
      assert(
        read(f, 0, 10, buffer = 2, max = 4, ending = utf8).lines ===
          Seq(Line(0, "a", truncated = true)))
    }
  }

  test("a line starting before a range is the previous range's; the last one runs past until") {
    assert(lines("aaaa\nbbbb\ncccc\n", 2, 6) === Seq((5L, "bbbb")))
    assert(lines("aaaa\nbbbb\ncccc\n", 4, 6) === Seq((5L, "bbbb")))
    assert(lines("aaaa\nbbbb\ncccc\n", 5, 6) === Seq((5L, "bbbb")))
    assert(lines("aaaa\nbbbb\ncccc\n", 6, 10) === Nil)
    assert(lines("aaaa\nbbbb\ncccc\n", 6, 11) === Seq((10L, "cccc")))
  }

  test("consecutive ranges cut anywhere, with tiny buffers, in batches, give every line once") {
    val random = new Random(42)
    val text = mixedLines(random, 300) + "a line still being written"
    val expected = completeLines(text).map { case (offset, line) => Line(offset, line) }
    val lineEnd = text.lastIndexOf('\n') + 1L
    withFile(text) { f =>
      for (buffer <- Seq(1, 2, 3, 7, 64, 1 << 16); batch <- Seq(1, 3, 4096); trial <- 1 to 25) {
        val cuts =
          (0L +: Seq.fill(trial)(random.nextInt(lineEnd.toInt).toLong) :+ lineEnd).distinct.sorted
        val reads = cuts.sliding(2).map { case Seq(a, b) => read(f, a, b, buffer, batch) }.toList
        assert(reads.flatMap(_.lines) === expected, s"buffer $buffer, batch $batch, cuts $cuts")
        assert(!reads.exists(_.incomplete))
      }
    }
  }

  test("lines longer than the maximum are cut and flagged; CRLF does not count towards it") {
    val max = 10
    val text = "x" * 100 + "\nshort\n" + "y" * 10 + "\n" + "z" * 11 + "\n" + "w" * 10 + "\r\n" +
      "v" * 10 + "\r\r\n" + "u" * 9 + "\r\n" + "t" * 40 + "\r\n"
    val expected = completeLines(text).map { case (offset, line) =>
      Line(offset, line.take(max), truncated = line.length > max)
    }
    assert(expected.count(_.truncated) === 4)
    withFile(text) { f =>
      for (buffer <- Seq(1, 2, 3, 7, 64)) {
        assert(read(f, 0, text.length, buffer, max = max).lines === expected, s"buffer $buffer")
      }
    }
  }

  test("a file that shrank after planning ends its range as incomplete, at the lost line") {
    withFile("aaaa\nbb") { f =>
      // Planned as "aaaa\nbbb\n" and then as a second range of that.
      assert(read(f, 0, 9) === Read(Seq(Line(0, "aaaa")), incomplete = true, resumeAt = 5))
      assert(read(f, 5, 9) === Read(Nil, incomplete = true, resumeAt = 5))
      assert(read(f, 6, 9) === Read(Nil, incomplete = true, resumeAt = 6))
    }
    withFile("aaaa\n") { f =>
      assert(read(f, 0, 9) === Read(Seq(Line(0, "aaaa")), incomplete = true, resumeAt = 5))
      assert(read(f, 7, 9) === Read(Nil, incomplete = true, resumeAt = 7))
    }
  }

  test("a short range inside a long line reads one buffer, not the rest of the line") {
    withFile("x" * (1 << 20) + "\nnext\n") { f =>
      val channel = new CountingChannel(FileChannel.open(f))
      try {
        val reader = new LineReader(channel, 10, 20, 1 << 20, bufferSize = 64)
        assert(!reader.next() && !reader.incomplete)
        assert(channel.bytesRead === 64L)
      } finally channel.close()
    }
  }

  test("reads go through the buffer only, whatever the line and range lengths") {
    withFile(("y" * 5000 + "\n") * 20) { f =>
      val channel = new CountingChannel(FileChannel.open(f))
      try {
        val reader = new LineReader(channel, 3, channel.size(), 100, bufferSize = 512)
        var n = 0
        while (reader.next()) n += 1
        assert(n === 19)
        assert(channel.largestRequest === 512)
      } finally channel.close()
    }
  }
}

object LineReaderSuite {

  /**
   * A line as read, its value decoded. The files are read as Latin-1 unless a test says
   * otherwise, so that a line keeps every byte.
   */
  final case class Line(offset: Long, text: String, truncated: Boolean = false)

  final case class Read(lines: Seq[Line], incomplete: Boolean, resumeAt: Long = -1L)

  def withFile[T](text: String)(body: Path => T): T = {
    val file = Files.createTempFile("lines-", ".log")
    try {
      Files.write(file, text.getBytes(ISO_8859_1), StandardOpenOption.TRUNCATE_EXISTING)
      body(file)
    } finally Files.deleteIfExists(file)
  }

  /**
   * Everything a reader gives for `[from, until)`; `resumeAt` only when it is incomplete. Read
   * as the source reads, in batches of up to `batch` lines: `next()`, then `nextInBuffer()`,
   * each line kept as a view of the reader's arrays and decoded once its batch is complete.
   */
  def read(
      file: Path,
      from: Long,
      until: Long,
      buffer: Int = 64,
      batch: Int = 4096,
      max: Int = 1 << 20,
      ending: LineEnding = Latin1): Read = {
    val channel = FileChannel.open(file, StandardOpenOption.READ)
    try {
      val reader = new LineReader(channel, from, until, max, buffer, ending)
      val out = mutable.ArrayBuffer.empty[Line]
      while (reader.next()) {
        val views = mutable.ArrayBuffer(View(reader))
        while (views.size < batch && reader.nextInBuffer()) views += View(reader)
        out ++= views.map(_.line)
      }
      Read(out.toList, reader.incomplete, if (reader.incomplete) reader.lineOffset else -1L)
    } finally channel.close()
  }

  /** The reader's current line, not yet decoded. */
  final case class View(bytes: Array[Byte], start: Int, length: Int, at: Long, cut: Boolean) {
    def line: Line = Line(at, new String(bytes, start, length, UTF_8), cut)
  }

  object View {
    def apply(r: LineReader): View =
      View(r.lineBytes, r.lineStart, r.lineLength, r.lineOffset, r.truncated)
  }

  val Latin1: LineEnding = LineEnding("ISO-8859-1")

  def lines(
      text: String,
      from: Long = 0,
      until: Long = -1,
      ending: LineEnding = Latin1): Seq[(Long, String)] =
    withFile(text) { f =>
      val to = if (until < 0) text.length.toLong else until
      read(f, from, to, ending = ending).lines.map(l => (l.offset, l.text))
    }

  /** The complete lines of `text` with their offsets, found without the reader. */
  def completeLines(text: String): Seq[(Long, String)] = {
    val ends = text.indices.filter(text(_) == '\n')
    ends.zip(-1 +: ends).map { case (end, previous) =>
      val line = text.substring(previous + 1, end)
      val withoutCr = if (line.endsWith("\r")) line.dropRight(1) else line
      (previous + 1L, withoutCr)
    }
  }

  /** Lines of every kind: empty, CRLF, lone `\r`, bytes that are not UTF-8. */
  def mixedLines(random: Random, count: Int): String =
    Seq
      .fill(count) {
        val body = Seq
          .fill(random.nextInt(40)) {
            random.nextInt(10) match {
              case 0 => (0x80 + random.nextInt(0x80)).toChar
              case 1 => '\r'
              case _ => ('a' + random.nextInt(26)).toChar
            }
          }
          .mkString
        body + (if (random.nextInt(4) == 0) "\r\n" else "\n")
      }
      .mkString
}
