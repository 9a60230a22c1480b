package com.hx.spark.sql.connector.aof.files.filter

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** `include.lines` and `exclude.lines` on a line's bytes. */
class LineFilterSuite extends AnyFunSuite {
  private def keeps(filter: LineFilter, line: String): Boolean = {
    // Inside a larger buffer, as the reader's lines are.
    val bytes = s"xx\n$line\nyy".getBytes(UTF_8)
    filter.keeps(bytes, 3, line.getBytes(UTF_8).length)
  }

  // format: off
  private val table = Seq(
    // (include, exclude, line, kept)
    (Seq("ERROR"), Nil, "2026-11-27 ERROR disk full", true),
    (Seq("ERROR"), Nil, "2026-11-27 INFO all well", false),
    (Seq("ERROR"), Nil, "ERRO", false),
    (Seq("ERROR", "FATAL"), Nil, "FATAL: gone", true),
    (Seq("ERROR|FATAL"), Nil, "FATAL: gone", true),
    (Seq("^\\d+ ERROR"), Nil, "42 ERROR x", true),
    (Seq("^\\d+ ERROR"), Nil, "x 42 ERROR", false),
    (Seq("(?i)error"), Nil, "an Error", true),
    (Nil, Seq("DEBUG"), "DEBUG noise", false),
    (Nil, Seq("DEBUG"), "INFO signal", true),
    (Seq("ERROR"), Seq("retrying"), "ERROR retrying", false),
    (Seq("ERROR"), Seq("retrying"), "ERROR for good", true),
    (Seq("é✓"), Nil, "ça é✓ va", true),
    (Seq("é✓"), Nil, "ça é va", false),
    (Seq("b$"), Nil, "ab", true),
    (Seq("ab"), Nil, "", false),
    (Nil, Seq("^$"), "", false)
  )
  // format: on

  table.foreach { case (include, exclude, line, kept) =>
    test(s"include $include, exclude $exclude: '$line' ${if (kept) "kept" else "dropped"}") {
      assert(keeps(LineFilter(include, exclude), line) === kept)
    }
  }

  test("no option, no filter") {
    assert(LineFilter.of(Nil, Nil).isEmpty)
    assert(LineFilter.of(Seq("x"), Nil).nonEmpty)
  }

  test("judged on the bytes as a regex on the decoded line judges, on generated lines") {
    val random = new Random(7)
    val regexes = Seq("ERROR", "ER+OR", "^E", "R$", "E.R", "[EO]R", "a\\.b", "ab?c")
    val alphabet = "ERO abc.é".toVector
    regexes.foreach { regex =>
      val filter = LineFilter(Seq(regex), Nil)
      val pattern = java.util.regex.Pattern.compile(regex)
      (1 to 2000).foreach { _ =>
        val line = Seq.fill(random.nextInt(10))(alphabet(random.nextInt(alphabet.size))).mkString
        assert(keeps(filter, line) === pattern.matcher(line).find(), s"'$regex' on '$line'")
      }
    }
  }
}
