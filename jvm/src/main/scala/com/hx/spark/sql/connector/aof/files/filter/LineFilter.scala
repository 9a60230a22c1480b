package com.hx.spark.sql.connector.aof.files.filter

import java.nio.charset.StandardCharsets.UTF_8
import java.util.regex.Pattern

import com.hx.spark.sql.connector.aof.files.lines.ByteSearch

/**
 * Which lines (or multi-line records) a source keeps, as Filebeat's `include_lines` and
 * `exclude_lines` do: with `include`, those one of its regexes is found in; of those, with
 * `exclude`, the ones none of its regexes is found in.
 *
 * A line is judged on its bytes first: a regex's [[RequiredLiteral]] missing from them rules it
 * out, and one that is the whole regex decides alone. Only the rest is decoded and matched. With
 * a selective `include` most lines are never decoded, and cost about one pass over their bytes.
 */
final case class LineFilter(include: Seq[String], exclude: Seq[String]) {
  @transient private lazy val includes = include.map(new LineFilter.Search(_))
  @transient private lazy val excludes = exclude.map(new LineFilter.Search(_))

  /** Whether the line `bytes[start, start + length)` is kept. */
  def keeps(bytes: Array[Byte], start: Int, length: Int): Boolean = {
    val line = new LineFilter.Line(bytes, start, length)
    (includes.isEmpty || includes.exists(_.foundIn(line))) && !excludes.exists(_.foundIn(line))
  }
}

object LineFilter {

  /** None when neither option is set: then nothing is judged at all. */
  def of(include: Seq[String], exclude: Seq[String]): Option[LineFilter] =
    Some(LineFilter(include, exclude)).filter(_ => include.nonEmpty || exclude.nonEmpty)

  /** A line's bytes, decoded at most once, and only when a regex must see them. */
  private final class Line(val bytes: Array[Byte], val start: Int, val length: Int) {
    lazy val text: String = new String(bytes, start, length, UTF_8)
  }

  private final class Search(regex: String) {
    private val pattern = Pattern.compile(regex)
    private val literal = RequiredLiteral.of(regex)
    private val needle = literal.map(_.text.getBytes(UTF_8))
    private val whole = literal.exists(_.whole)

    def foundIn(line: Line): Boolean =
      needle.forall(ByteSearch.indexOf(line.bytes, line.start, line.start + line.length, _) >= 0) &&
        (whole || pattern.matcher(line.text).find())
  }
}
