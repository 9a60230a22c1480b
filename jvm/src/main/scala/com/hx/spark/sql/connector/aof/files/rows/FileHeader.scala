package com.hx.spark.sql.connector.aof.files.rows

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.util.regex.Pattern

import com.hx.spark.sql.connector.aof.files.lines.{LineEnding, LineReader}

/**
 * The lines at a file's head that say what its other lines mean (`header.lines`): a W3C or IIS
 * log's `#Fields:` and its other directives, a CSV's column names. They are the file's first
 * lines, each one the regex finds something in, at most [[FileHeader.LinesMax]] of them; the
 * first line it finds nothing in ends them. They are not rows: every row of the file carries them.
 *
 * Whether a line is one depends only on the bytes before its end, which a log only appends to: so
 * every reader of a file, a range starting mid-file, a replay and a copy made by a rotation find
 * the same header for the same line.
 *
 * @param regex a Java regex, checked when the query is defined
 */
final case class FileHeader(regex: String) {
  Pattern.compile(regex)
  @transient private lazy val compiled = Pattern.compile(regex)

  /**
   * The header of the file `channel` reads, its lines read with `lineLimit` and `ending` as any
   * line is.
   */
  def of(channel: FileChannel, lineLimit: Int, ending: LineEnding): FileHeader.Found = {
    val lines = new LineReader(channel, 0L, channel.size(), lineLimit, 16 * 1024, ending)
    val header = Seq.newBuilder[String]
    var count = 0
    var end = 0L
    def line = new String(lines.lineBytes, lines.lineStart, lines.lineLength, UTF_8)
    while (count < FileHeader.LinesMax && lines.next() && compiled.matcher(line).find()) {
      header += line
      count += 1
      end = lines.lineEnd
    }
    val text = header.result()
    FileHeader.Found(end, Some(text).filter(_.nonEmpty).map(_.mkString("\n")))
  }
}

object FileHeader {

  /** More lines than a header has: a file of comments only is not all header. */
  val LinesMax = 100

  /**
   * @param end   where the header's last line ends: lines before it are not rows
   * @param lines the header's lines, joined by `\n`; None when the file has none
   */
  final case class Found(end: Long, lines: Option[String])
}
