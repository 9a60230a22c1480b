package com.hx.spark.sql.connector.aof.files.filter

import scala.collection.mutable

/**
 * The text every match of a regex contains, when the regex says so plainly: a run of literal
 * characters outside any group or class, none of them optional, in a regex without alternation
 * or inline flags. `ERROR`, `level=warn` and `^\d+ ERROR:` have one (`ERROR`, `level=warn`,
 * ` ERROR:`); `ERROR|FATAL`, `(?i)error`, `[EW]RROR` and `\x41` have none. A line without it
 * cannot match, so it is looked for in the bytes before the line is even found, let alone decoded.
 *
 * Anything it does not understand gives none: that costs speed, never a line.
 *
 * @param text  the literal
 * @param whole whether the regex is the literal and nothing else: a line holding it matches
 */
final case class RequiredLiteral(text: String, whole: Boolean)

object RequiredLiteral {
  // Characters that are not themselves outside a class.
  private val Special = "\\^$.|?*+()[]{}"
  // Characters an escape makes literal.
  private val Escapable = "\\^$.|?*+()[]{}/-#&~\"'<>=:,;!@%` "
  // Escapes of two characters that stand for a class or a position, not a character.
  private val Classes = "dDsSwWbBhHvVRXzZAG"
  // Escapes of one character that stand for a control character.
  private val Controls = Map('t' -> '\t', 'n' -> '\n', 'r' -> '\r', 'f' -> '\f', 'a' -> '\u0007')

  def of(regex: String): Option[RequiredLiteral] =
    if (regex.contains('|') || regex.contains("(?") || regex.contains("\\Q")) None
    else scan(regex)

  private def scan(regex: String): Option[RequiredLiteral] = {
    val runs = mutable.ArrayBuffer.empty[String]
    val run = new StringBuilder
    var others = false
    def breakRun(): Unit = {
      if (run.nonEmpty) runs += run.toString
      run.clear()
      others = true
    }
    var depth = 0 // inside groups: nothing there is required
    var i = 0
    while (i < regex.length) {
      val (literal, next) = element(regex, i) match {
        case Some(found) => found
        case None => return None
      }
      regex.charAt(i) match {
        case '(' => depth += 1
        case ')' if depth > 0 => depth -= 1
        case _ =>
      }
      val quantifier = if (next < regex.length) regex.charAt(next) else ' '
      literal match {
        case Some(ch) if depth == 0 && !"?*{".contains(quantifier) =>
          run += ch
          if (quantifier == '+') breakRun()
        case _ => breakRun()
      }
      i = next
    }
    if (run.nonEmpty) runs += run.toString
    if (runs.isEmpty) None
    else Some(RequiredLiteral(runs.maxBy(_.length), whole = !others && runs.size == 1))
  }

  /**
   * The character the element at `i` stands for, if one, and where the next element starts;
   * None for an element not read here.
   */
  private def element(regex: String, i: Int): Option[(Option[Char], Int)] = {
    val c = regex.charAt(i)
    c match {
      case '\\' if i + 1 >= regex.length => None
      case '\\' =>
        val e = regex.charAt(i + 1)
        if (Escapable.indexOf(e) >= 0) Some((Some(e), i + 2))
        else if (Controls.contains(e)) Some((Controls.get(e), i + 2))
        else if (Classes.indexOf(e) >= 0) Some((None, i + 2))
        else None // \x41, \u0041, \p{L}, \1, ...: not read here
      case '{' => Some(regex.indexOf('}', i)).filter(_ >= 0).map(end => (None, end + 1))
      case '[' => Some(classEnd(regex, i)).filter(_ >= 0).map(end => (None, end))
      case _ if Special.indexOf(c) >= 0 || Character.isSurrogate(c) => Some((None, i + 1))
      case _ => Some((Some(c), i + 1))
    }
  }

  /** Where the class starting at `start` ends (just after its `]`); -1 when unsure. */
  private def classEnd(regex: String, start: Int): Int = {
    var j = start + 1
    if (j < regex.length && regex.charAt(j) == '^') j += 1
    if (j < regex.length && regex.charAt(j) == ']') return -1
    var nesting = 1
    while (j < regex.length) {
      regex.charAt(j) match {
        case '\\' => j += 2
        case '[' =>
          nesting += 1
          j += 1
        case ']' =>
          nesting -= 1
          j += 1
          if (nesting == 0) return j
        case _ => j += 1
      }
    }
    -1
  }
}
