package com.hx.spark.sql.connector.aof.files.lines

import java.nio.channels.FileChannel
import java.nio.charset.Charset
import java.nio.charset.StandardCharsets.{UTF_16, UTF_8}
import java.nio.file.{Files, Path}

import scala.util.Random

import org.apache.logging.log4j.core.impl.Log4jLogEvent
import org.apache.logging.log4j.core.layout.PatternLayout
import org.apache.logging.log4j.message.SimpleMessage
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.Prefixes
import com.hx.spark.sql.connector.aof.files.lines.LineReaderSuite.{read, Line}

/**
 * Lines in every charset and with every separator: random lines written in the charset, read
 * back in ranges cut anywhere (odd bytes of UTF-16 too), through buffers smaller than a
 * character, must come out as written, each once, at its byte offset; and a node's search for
 * the last line end must agree with where the lines end.
 */
class LineEndingSuite extends AnyFunSuite {
  import LineEndingSuite._

  private val cases = Seq(
    Case(LineEnding()),
    Case(LineEnding("UTF-16LE"), mark = true),
    Case(LineEnding("UTF-16BE")),
    Case(LineEnding("UTF-16"), mark = true, written = "UTF-16LE"),
    Case(LineEnding("UTF-16"), mark = true, written = "UTF-16BE"),
    Case(LineEnding("UTF-16"), written = "UTF-16BE"),
    Case(LineEnding("UTF-32LE"), mark = true),
    Case(LineEnding("GB18030")),
    Case(LineEnding("Shift_JIS")),
    Case(LineEnding("EUC-JP")),
    Case(LineEnding("Big5")),
    Case(LineEnding("windows-1252")),
    Case(LineEnding("UTF-8", Some("\r"))),
    Case(LineEnding("UTF-8", Some("\u0000"))),
    Case(LineEnding("UTF-8", Some("|;"))),
    Case(LineEnding("UTF-8", Some("\r\n"))),
    Case(LineEnding("UTF-16LE", Some("<EOL>")), mark = true)
  )

  for (c <- cases) test(s"ranges cut anywhere give every line once: $c") {
    val random = new Random(c.toString.hashCode)
    val file = c.write(random, 120)
    try {
      val size = Files.size(file.path)
      val lastEnd = file.ends.last
      for (buffer <- Seq(1, 3, 7, 64, 1 << 16); trial <- 1 to 12) {
        val cuts =
          (0L +: Seq.fill(trial)(random.nextInt(lastEnd.toInt).toLong) :+ lastEnd).distinct.sorted
        val reads = cuts
          .sliding(2)
          .map { case Seq(a, b) =>
            read(file.path, a, b, buffer, batch = 1 + random.nextInt(5), ending = c.ending)
          }
          .toList
        val got = reads.flatMap(_.lines)
        val differ = got.zipAll(file.lines, null, null).find { case (a, b) => a != b }
        assert(differ.isEmpty, s"buffer $buffer, cuts $cuts")
        assert(!reads.exists(_.incomplete))
      }
      // The last line is still being written: not a line yet, and the file ends inside it.
      assert(read(file.path, lastEnd, size, ending = c.ending).lines === Nil)
    } finally Files.delete(file.path)
  }

  for (c <- cases) test(s"the last line end before any point is where a line ends: $c") {
    val random = new Random(c.toString.hashCode + 1)
    val file = c.write(random, 60)
    val channel = FileChannel.open(file.path)
    try {
      val size = channel.size()
      for (_ <- 1 to 300) {
        val to = random.nextInt(size.toInt + 1).toLong
        val from = random.nextInt(to.toInt + 1).toLong
        val expected = file.ends.filter(e => e > from && e <= to).lastOption
        assert(Prefixes.lastLineEnd(channel, from, to, c.ending) === expected, s"($from, $to]")
      }
    } finally {
      channel.close()
      Files.delete(file.path)
    }
  }

  test("a UTF-16 line cut to the maximum is cut between characters; its CRLF does not count") {
    val ending = LineEnding("UTF-16LE")
    val text = "abcdefgh\r\n" + "abcd\r\n" + "abcdefghijk\r\n"
    withBytes(text.getBytes("UTF-16LE")) { path =>
      assert(
        read(path, 0, text.length * 2L, max = 9, ending = ending).lines === Seq(
          Line(0, "abcd", truncated = true),
          Line(20, "abcd"),
          Line(32, "abcd", truncated = true)))
      assert(
        read(path, 0, text.length * 2L, max = 8, ending = ending).lines(1) === Line(20, "abcd"))
    }
  }

  test("a line cut inside a character loses that character, which is not counted invalid") {
    for ((charset, max) <- Seq("UTF-8" -> 5, "UTF-16LE" -> 6, "GB18030" -> 5, "UTF-8" -> 4)) {
      val text = "\u00e9\u00e9\ud83d\ude00x\n"
      withBytes(text.getBytes(charset)) { path =>
        val channel = FileChannel.open(path)
        try {
          val ending = LineEnding(charset)
          val reader = new LineReader(channel, 0, channel.size(), max, ending = ending)
          assert(reader.next() && reader.truncated)
          val value = new String(reader.lineBytes, reader.lineStart, reader.lineLength, UTF_8)
          assert(value === "\u00e9\u00e9", s"$charset, $max bytes")
          assert(reader.invalid === 0L)
        } finally channel.close()
      }
    }
  }

  test("bytes not of the charset are read as U+FFFD, and their lines are counted") {
    val loneSurrogate = Array(0x3d, 0xdc, 'x', 0).map(_.toByte) // a low surrogate, then 'x'
    val lines = "ok\n".getBytes("UTF-16LE") ++ loneSurrogate ++ "\n".getBytes("UTF-16LE")
    withBytes(lines) { path =>
      val channel = FileChannel.open(path)
      try {
        val reader = new LineReader(channel, 0, lines.length, 100, ending = LineEnding("UTF-16LE"))
        assert(reader.next() && reader.next())
        assert(
          new String(reader.lineBytes, reader.lineStart, reader.lineLength, UTF_8) === "\ufffdx")
        assert(!reader.next() && reader.invalid === 1L)
      } finally channel.close()
    }
  }

  test("a line's value is what the JDK decodes, U+FFFD for what it cannot; invalid ones counted") {
    val random = new Random(7)
    val units = "aZ \u00e9\u07ff\u0800\u65e5\uffff\ud83d\ude00\ud800\udc00"
    for (charset <- Seq("UTF-16LE", "UTF-16BE", "UTF-8", "GB18030", "windows-1252")) {
      val decoder = new LineDecoder(Charset.forName(charset))
      var invalid = 0L
      for (_ <- 1 to 2000) {
        val bytes =
          if (random.nextBoolean()) {
            val text = Seq.fill(random.nextInt(12))(units(random.nextInt(units.length))).mkString
            text
              .getBytes(if (charset.startsWith("UTF-16")) charset else "UTF-16LE")
              .drop(if (charset.startsWith("UTF-16")) 0 else random.nextInt(2))
          } else Array.fill(random.nextInt(12))(random.nextInt(256).toByte)
        val strict = Charset.forName(charset).newDecoder()
        if (scala.util.Try(strict.decode(java.nio.ByteBuffer.wrap(bytes))).isFailure) invalid += 1
        decoder.reset()
        decoder.decode(bytes, 0, bytes.length)
        val value = new String(decoder.bytes, decoder.start, decoder.length, UTF_8)
        assert(value === new String(bytes, charset), s"$charset ${bytes.toSeq}")
        if (charset == "UTF-8") {
          val valid = scala.util.Try(strict.reset().decode(java.nio.ByteBuffer.wrap(bytes)))
          assert(LineDecoder.validUtf8(bytes, 0, bytes.length) === valid.isSuccess)
        }
      }
      assert(decoder.invalid === invalid, charset)
    }
  }

  test("log4j writing UTF-16 (a byte order mark before each event) gives lines without marks") {
    // The bytes log4j's appenders write: its layout's, event by event.
    val layout = PatternLayout.newBuilder().withPattern("%m%n").withCharset(UTF_16).build()
    val messages = Seq("d\u00e9marrage", "\u30a8\u30e9\u30fc 17", "", "fin")
    val bytes = messages.flatMap { m =>
      layout.toByteArray(Log4jLogEvent.newBuilder().setMessage(new SimpleMessage(m)).build())
    }.toArray
    assert(bytes.take(2).toSeq === Seq(0xfe, 0xff).map(_.toByte), "a mark at the head")
    withBytes(bytes) { path =>
      val lines = read(path, 0, bytes.length, ending = LineEnding("UTF-16")).lines.map(_.text)
      assert(lines === messages)
    }
  }

  test("a separator that can overlap itself is one, and others are not") {
    assert(LineEnding("UTF-8", Some("||")).overlapsItself)
    assert(LineEnding("UTF-8", Some("abab")).overlapsItself)
    assert(LineEnding("UTF-16LE", Some("aa")).overlapsItself)
    assert(!LineEnding("UTF-8", Some("|;")).overlapsItself)
    assert(!LineEnding("UTF-8", Some("\r\n")).overlapsItself)
    // In UTF-16 '\u0a0a' is 0A 0A: it overlaps itself by a byte, which is not a character.
    assert(!LineEnding("UTF-16LE", Some("\u0a0a")).overlapsItself)
    assert(!LineEnding().overlapsItself && !LineEnding("UTF-16").overlapsItself)
  }

  private def withBytes[T](bytes: Array[Byte])(body: Path => T): T = {
    val path = Files.createTempFile("ending-", ".log")
    try {
      Files.write(path, bytes)
      body(path)
    } finally Files.delete(path)
  }
}

object LineEndingSuite {

  /** A file of lines: where it is, its lines as they must be read, and where each ends. */
  final case class Written(path: Path, lines: Seq[Line], ends: Seq[Long])

  /**
   * @param mark    the file starts with the charset's byte order mark
   * @param written the charset the file is written in, when the ending names none exactly
   */
  final case class Case(ending: LineEnding, mark: Boolean = false, written: String = "") {
    private val charset = Charset.forName(if (written.nonEmpty) written else ending.encoding)
    private val separator = ending.separator.getOrElse("\n")
    // Characters whose bytes hold a separator's at odd offsets in UTF-16 ('\u0a05' then '\u4e00'),
    // CJK, a pair of surrogates, a lone `\r`, and the separator's own characters alone.
    private val candidates =
      ("abcxyz 09\r\t|;<EOL>\u00e9\u00fc\u65e5\u672c\u4e00\u0a05\u3042\u00a5" + "\ud83d\ude00")
        .map(_.toString)
        .filter(c => charset.newEncoder().canEncode(c) && !separator.contains(c))
        .filter(c => new String(c.getBytes(charset), charset) == c) // '\u00a5' in Shift_JIS is '\\'
        .filter(c => ending.separator.nonEmpty || c != "\n")
        .distinct

    def write(random: Random, count: Int): Written = {
      val bodies = Seq.fill(count) {
        val body =
          Seq.fill(random.nextInt(30))(candidates(random.nextInt(candidates.size))).mkString
        // No `\r` at its end: that would be the CRLF's.
        if (ending.separator.isEmpty) body.reverse.dropWhile(_ == '\r').reverse else body
      } :+ "the last line, still being written"
      val head = if (mark) "\ufeff".getBytes(charset) else Array.emptyByteArray
      var offset = head.length.toLong
      val encoded = bodies.map { body =>
        val crlf = ending.separator.isEmpty && random.nextInt(3) == 0
        val bytes = (body + (if (crlf) "\r" else "") + separator).getBytes(charset)
        val at = offset
        offset += bytes.length
        (Line(if (at == head.length) 0L else at, body), bytes, offset)
      }
      val path = Files.createTempFile("ending-", ".log")
      val last = encoded.last._2
      Files.write(path, head ++ encoded.init.flatMap(_._2) ++ last.take(last.length - 3))
      Written(path, encoded.init.map(_._1), encoded.init.map(_._3))
    }

    override def toString: String =
      s"${ending.encoding}${if (written.nonEmpty) s" ($written)" else ""}" +
        s"${if (mark) " with a mark" else ""}" +
        ending.separator.fold("")(s => s", separator ${s.map(c => f"U+${c.toInt}%04X").mkString}")
  }
}
