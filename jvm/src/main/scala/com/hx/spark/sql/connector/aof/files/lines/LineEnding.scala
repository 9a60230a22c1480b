package com.hx.spark.sql.connector.aof.files.lines

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.charset.Charset

/**
 * How a query's files are lines: the charset they are written in (`encoding`) and what ends a
 * line (`line.separator`; by default `\n`, with a `\r` before it not part of the line). Checked
 * when the query is defined; each file's [[Separator]] is resolved where the file is read.
 *
 * `UTF-16` and `UTF-32` name no byte order: a file's byte order mark gives it, as Java's decoders
 * read it (big-endian without one), so each file is resolved from its first bytes.
 */
final case class LineEnding(encoding: String = "UTF-8", separator: Option[String] = None) {
  import LineEnding._

  require(separator.forall(_.nonEmpty), "a line separator is not empty")
  // Neither is serializable; both are made again where the query runs.
  @transient private lazy val named: Charset = Charset.forName(encoding)
  @transient private lazy val fixed: Option[Separator] =
    if (byMark.contains(named.name)) None else Some(separatorIn(named))

  /** The default, where a line's bytes are its value: the reader's fast path. */
  def isDefault: Boolean = this == LineEnding.Default

  /** The separator of the file `channel` reads. */
  def in(channel: FileChannel): Separator = fixed.getOrElse(separatorIn(marked(channel)))

  /** The separator of a file whose charset is known (the only one, unless by byte order mark). */
  def separatorIn(charset: Charset): Separator = {
    val newline = encode("\n", charset)
    val bytes = separator.fold(newline)(encode(_, charset))
    val carriageReturn = if (separator.isEmpty) encode("\r", charset) else Array.emptyByteArray
    val mark =
      if (charset.name.startsWith("UTF-")) encode("\uFEFF", charset) else Array.emptyByteArray
    new Separator(bytes, newline.length, carriageReturn, mark, charset)
  }

  /**
   * Whether the separator can overlap itself (`||`, `abab`): then where a line starts would
   * depend on where a search for it began.
   */
  def overlapsItself: Boolean = {
    val s = fixed.getOrElse(separatorIn(Charset.forName(byMark(named.name))))
    (s.unit until s.length by s.unit).exists(shift => s.bytes.startsWith(s.bytes.drop(shift)))
  }

  private def marked(channel: FileChannel): Charset = {
    val head = ByteBuffer.allocate(4)
    while (head.hasRemaining && channel.read(head, head.position().toLong) > 0) ()
    val b = head.array().take(head.position()).map(_ & 0xff).toSeq
    val little = named.name match {
      case "UTF-16" => b.startsWith(Seq(0xff, 0xfe))
      case _ => b.startsWith(Seq(0xff, 0xfe, 0, 0))
    }
    Charset.forName(named.name + (if (little) "LE" else "BE"))
  }
}

object LineEnding {
  val Default: LineEnding = LineEnding()

  /** Charsets whose files say their byte order, and the order Java reads without a mark. */
  private val byMark = Map("UTF-16" -> "UTF-16BE", "UTF-32" -> "UTF-32BE")

  private def encode(text: String, charset: Charset): Array[Byte] = {
    val encoded = charset.newEncoder().encode(java.nio.CharBuffer.wrap(text))
    val bytes = new Array[Byte](encoded.remaining())
    encoded.get(bytes)
    bytes
  }
}
