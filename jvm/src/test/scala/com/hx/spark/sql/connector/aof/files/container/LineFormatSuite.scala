package com.hx.spark.sql.connector.aof.files.container

import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Instant, OffsetDateTime}

import scala.util.{Random, Try}

import org.scalatest.funsuite.AnyFunSuite

/** How a container runtime's line is taken apart: message, stream, time, partial or not. */
class LineFormatSuite extends AnyFunSuite {
  private case class Chunk(message: String, stream: String, time: Option[String], partial: Boolean)

  private def parse(format: LineFormat, line: String): (Boolean, Chunk) = {
    val chunks = format.parser()
    val bytes = ("junk" + line + "junk").getBytes(UTF_8)
    val length = line.getBytes(UTF_8).length
    val ok = chunks.parse(bytes, 4, length)
    val message = new String(chunks.bytes, chunks.start, chunks.length, UTF_8)
    val stream = format.streamName(chunks.stream)
    val time = Option(stream).map(_ => Instant.EPOCH.plusNanos(chunks.timeMicros * 1000).toString)
    ok -> Chunk(message, stream, time, chunks.partial)
  }

  private val T = "2026-11-28T10:00:00.123456789Z"
  private val Tus = Some("2026-11-28T10:00:00.123456Z")

  // format: off
  private val cri = Seq(
    s"$T stdout F hello world" -> Chunk("hello world", "stdout", Tus, partial = false),
    s"$T stderr P the first 16 KiB" -> Chunk("the first 16 KiB", "stderr", Tus, partial = true),
    s"$T stdout F " -> Chunk("", "stdout", Tus, partial = false),
    s"$T stdout F" -> Chunk("", "stdout", Tus, partial = false),
    s"$T stdout F  two spaces kept" -> Chunk(" two spaces kept", "stdout", Tus, partial = false),
    s"$T stdout P:x more tags" -> Chunk("more tags", "stdout", Tus, partial = true),
    "2026-11-28T13:00:00.5+03:00 stdout F CRI-O's offset" ->
      Chunk("CRI-O's offset", "stdout", Some("2026-11-28T10:00:00.500Z"), partial = false),
    "2026-11-28T10:00:00Z stdout F no fraction" ->
      Chunk("no fraction", "stdout", Some("2026-11-28T10:00:00Z"), partial = false)
  )
  private val notCri = Seq(
    "plain text, no runtime",
    s"$T stdin F not a stream",
    s"$T stdout X not a tag",
    "2026-13-28T10:00:00Z stdout F month 13",
    "2026-11-28T10:00:00.1234567891Z stdout F ten digits",
    "2026-11-28T10:00:00 stdout F no zone",
    s"$T stdout"
  )
  private val docker = Seq(
    s"""{"log":"hello\\n","stream":"stdout","time":"$T"}""" -> Chunk("hello", "stdout", Tus, partial = false),
    s"""{"log":"a 16 KiB chunk","stream":"stderr","time":"$T"}""" -> Chunk("a 16 KiB chunk", "stderr", Tus, partial = true),
    s"""{"log":"crlf\\r\\n","stream":"stdout","time":"$T"}""" -> Chunk("crlf", "stdout", Tus, partial = false),
    s"""{"time":"$T","attrs":{"a":[1]},"stream":"stdout","log":"caf\\u00e9 \\"q\\"\\n"}""" ->
      Chunk("café \"q\"", "stdout", Tus, partial = false)
  )
  private val notDocker = Seq(
    "plain text",
    s"""{"log":"no stream\\n","time":"$T"}""",
    s"""{"log":"bad time\\n","stream":"stdout","time":"yesterday"}""",
    s"""{"log":"cut short""",
    "[1, 2]"
  )
  // format: on

  test("cri: the message in place, its stream and time, and whether more of it follows") {
    cri.foreach { case (line, chunk) => assert(parse(LineFormat.Cri, line) === (true -> chunk)) }
  }

  test("docker: the decoded log, without its newline, partial without one") {
    docker.foreach { case (line, chunk) =>
      assert(parse(LineFormat.Docker, line) === (true -> chunk))
    }
  }

  test("a line not of the format is the whole line, complete, of no stream") {
    val cases = notCri.map(LineFormat.Cri -> _) ++ notDocker.map(LineFormat.Docker -> _)
    cases.foreach { case (format, line) =>
      assert(parse(format, line) === (false -> Chunk(line, null, None, partial = false)), line)
    }
  }

  test("text is every line whole") {
    assert(
      parse(LineFormat.Text, s"$T stdout P x") === (true -> Chunk(
        s"$T stdout P x",
        null,
        None,
        false)))
  }

  test("a time is worked out again when its second changes") {
    val chunks = LineFormat.Cri.parser()
    val times = Seq("2026-11-28T10:00:00.9Z", "2026-11-28T10:00:01.1Z", "2026-12-31T23:59:59Z")
    val micros = times.map { t =>
      val b = s"$t stdout F x".getBytes(UTF_8)
      assert(chunks.parse(b, 0, b.length))
      chunks.timeMicros
    }
    assert(micros === times.map(t => Instant.parse(t).toEpochMilli * 1000L))
  }

  test("any time, valid or not, reads as java.time reads it, alone or as a line's prefix") {
    val random = new Random(11)
    def two(n: Int) = f"$n%02d"
    val time = new RuntimeTime
    for (_ <- 1 to 20000) {
      val digits = random.nextInt(11)
      val fraction = if (digits == 0) "" else "." + Seq.fill(digits)(random.nextInt(10)).mkString
      val zone = random.nextInt(3) match {
        case 0 => "Z"
        case k =>
          (if (k == 1) "+" else "-") + two(random.nextInt(15)) + ":" + two(15 * random.nextInt(4))
      }
      // The same second for runs of lines, as a log has them; some days and months not real.
      val day = if (random.nextInt(20) == 0) random.nextInt(32) else 28
      val month = if (random.nextInt(20) == 0) 2 + random.nextInt(12) else 11
      val text =
        s"2026-${two(month)}-${two(day)}T10:0${random.nextInt(2)}:0${random.nextInt(2)}$fraction$zone"
      val expected = Try(OffsetDateTime.parse(text)).toOption.map { t =>
        t.toEpochSecond * 1000000L + t.getNano / 1000
      }
      val alone = text.getBytes(UTF_8)
      val line = s"$text stdout F x".getBytes(UTF_8)
      val found = Some(time.micros(alone, 0, alone.length)).filter(_ != RuntimeTime.Invalid)
      assert(found === expected, text)
      val prefix = Some(time.prefix(line, 0, line.length)).filter(_ != RuntimeTime.Invalid)
      assert(prefix === expected, text)
      if (expected.isDefined) assert(time.end === alone.length, text)
    }
  }
}
