package com.hx.spark.sql.connector.aof.files.filter

import java.util.regex.Pattern

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** The text a regex's every match contains: read off the regex, then held against real matches. */
class RequiredLiteralSuite extends AnyFunSuite {
  private def whole(text: String) = Some(RequiredLiteral(text, whole = true))
  private def part(text: String) = Some(RequiredLiteral(text, whole = false))

  // format: off
  private val table = Seq(
    "ERROR" -> whole("ERROR"),
    "level=warn" -> whole("level=warn"),
    "a\\.b" -> whole("a.b"),
    "\\[ERROR\\]" -> whole("[ERROR]"),
    "^\\d+ ERROR:" -> part(" ERROR:"),
    "ERROR$" -> part("ERROR"),
    "ab?c" -> part("a"),
    "abc*d" -> part("ab"),
    "xa+y" -> part("xa"),
    "ab{2}cd" -> part("cd"),
    "(abc)?de" -> part("de"),
    "(abc)+" -> None,
    "[)a]b" -> part("b"),
    "[EW]RROR" -> part("RROR"),
    "foo\\tbar" -> whole("foo\tbar"),
    "ERROR|FATAL" -> None,
    "(?i)error" -> None,
    "\\x41BC" -> None,
    "\\p{Lu}XYZ" -> None,
    "\\QERROR\\E" -> None,
    ".*" -> None,
    "[]a]" -> None,
    "é✓" -> whole("é✓")
  )
  // format: on

  table.foreach { case (regex, expected) =>
    test(s"required literal of '$regex'") {
      assert(RequiredLiteral.of(regex) === expected)
    }
  }

  // Each regex against many strings made of its own characters and a few others: a line that
  // matches holds the literal, and one that holds a whole literal matches.
  test("every match holds the literal, on generated lines") {
    val random = new Random(42)
    val regexes = table.map(_._1) ++ Seq("a?b?c", "[ab]c+d", "a(b)c", "z{1,3}y", "q\\+r", "^ab")
    regexes.foreach { regex =>
      val pattern = Pattern.compile(regex)
      val alphabet =
        (regex.filter(c => c.isLetterOrDigit || " =:.[]\t".contains(c)) + "ab").toVector
      RequiredLiteral.of(regex).foreach { literal =>
        (1 to 3000).foreach { _ =>
          val line = Seq.fill(random.nextInt(12))(alphabet(random.nextInt(alphabet.size))).mkString
          val withLiteral =
            if (random.nextBoolean()) line
            else line.patch(random.nextInt(line.length + 1), literal.text, 0)
          val matches = pattern.matcher(withLiteral).find()
          val holds = withLiteral.contains(literal.text)
          assert(!matches || holds, s"'$regex' matches '$withLiteral' without '${literal.text}'")
          if (literal.whole) assert(matches === holds, s"'$regex' on '$withLiteral'")
        }
      }
    }
  }
}
