package com.hx.spark.sql.connector.aof.files.rows

import java.util.regex.Pattern

import scala.collection.mutable.ArrayBuffer

/**
 * Columns taken from a file's path (`path.columns`): a regex searched for in the path, each of
 * its named groups a string column, null where the regex is not found or the group took no part.
 * The kubelet's layout, `/var/log/pods/<namespace>_<pod>_<uid>/<container>/`, gives a pod's
 * metadata this way.
 *
 * Names may hold `_` (`pod_uid`), and may be written `(?P<name>...)` as in Python; Java's own
 * named groups allow neither, so the named groups are rewritten as numbered ones, and the names
 * kept here.
 *
 * @throws IllegalArgumentException for a regex that does not compile or has no named group
 */
final case class PathColumns(regex: String) {
  val (names: Seq[String], numbered: String) = PathColumns.rewrite(regex)
  if (names.isEmpty) throw new IllegalArgumentException("it names no group")
  if (names.distinct.size < names.size) {
    throw new IllegalArgumentException(s"a group name appears twice (${names.mkString(", ")})")
  }
  Pattern.compile(numbered) // refused here, when the query is defined
  @transient private lazy val compiled = Pattern.compile(numbered)
  @transient private lazy val groups = PathColumns.groupNumbers(regex)

  /** The columns' values for a file at `path`, in the order of `names`. */
  def values(path: String): Seq[Option[String]] = {
    val m = compiled.matcher(path)
    if (!m.find()) names.map(_ => None) else groups.map(g => Option(m.group(g)))
  }
}

object PathColumns {
  private val Named = """\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>""".r

  /**
   * The group names in order, and the regex with each named group made a plain one. Escapes
   * (`\(`), quotes (`\Q...\E`) and character classes are skipped, so only real groups count.
   */
  private def rewrite(regex: String): (Seq[String], String) = {
    val names = ArrayBuffer.empty[String]
    val out = new StringBuilder
    scan(regex) {
      case (i, true) =>
        Named.findPrefixMatchOf(regex.substring(i)) match {
          case Some(m) =>
            names += m.group(1)
            out += '('
            m.end
          case None =>
            out += regex(i)
            1
        }
      case (i, false) =>
        out += regex(i)
        1
    }
    (names.toVector, out.toString)
  }

  /** The number of each named group in the rewritten regex, in the order of the names. */
  private def groupNumbers(regex: String): Seq[Int] = {
    val numbers = ArrayBuffer.empty[Int]
    var group = 0
    scan(regex) {
      case (i, true) =>
        val rest = regex.substring(i)
        if (!rest.startsWith("(?") || Named.findPrefixMatchOf(rest).isDefined) group += 1
        if (Named.findPrefixMatchOf(rest).isDefined) numbers += group
        1
      case _ => 1
    }
    numbers.toVector
  }

  /**
   * Walks `regex`, calling `at(i, isGroupOpening)` for each position outside escapes, quotes
   * and classes (where an opening is never a group); `at` returns how far to move on.
   */
  private def scan(regex: String)(at: (Int, Boolean) => Int): Unit = {
    var i = 0
    var inClass = 0
    var quoted = false
    while (i < regex.length) {
      val c = regex(i)
      if (quoted) {
        if (regex.startsWith("\\E", i)) quoted = false
        i += at(i, false)
      } else if (c == '\\') {
        quoted = regex.startsWith("\\Q", i)
        i += at(i, false)
        if (i < regex.length) i += at(i, false)
      } else if (c == '[') {
        inClass += 1
        i += at(i, false)
      } else if (c == ']' && inClass > 0) {
        inClass -= 1
        i += at(i, false)
      } else i += at(i, c == '(' && inClass == 0)
    }
  }
}
