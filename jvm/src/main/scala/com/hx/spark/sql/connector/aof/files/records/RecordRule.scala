package com.hx.spark.sql.connector.aof.files.records

import java.nio.charset.StandardCharsets.UTF_8
import java.util.regex.Pattern

import com.hx.spark.sql.connector.aof.files.container.{LineFormat, MessageJoin}

/**
 * How lines group into records: the messages of a container runtime's lines ([[LineFormat]],
 * [[MessageJoin]]), and multi-line records (a Java stack trace, say) of those messages. Without
 * a `pattern` each message is a record. With one, a record starts at a message that `pattern`
 * finds something in (with `patternStarts`) or finds nothing in (a pattern of continuation
 * lines, such as `^\s`), and at a message that would take the record past `bytesMax`.
 *
 * Whether a line starts a record depends only on the line and on the record before it since a
 * known record start, never on time: so the node that finds where records end and the task that
 * reads them, both starting at the driver's position, agree. Time enters once, in the plan: a
 * file's last record is complete once the file went `flushMs` without a write, and the driver
 * then ends the batch after it, which makes that end a record start for every later reader.
 *
 * @param lineLengthMax messages are cut to it before they are matched, as the reader cuts them
 * @param scanWindow    how far past the driver's position a node looks for record ends in one
 *                      trigger (a few times the smallest byte limit); None looks to the end
 */
final case class RecordRule(
    pattern: Option[String],
    patternStarts: Boolean,
    bytesMax: Int,
    flushMs: Long,
    lineLengthMax: Int,
    scanWindow: Option[Long],
    format: LineFormat = LineFormat.Text) {
  @transient private lazy val compiled = pattern.map(Pattern.compile(_))

  /** Whether records span several messages: else each message is one. */
  def multiline: Boolean = pattern.isDefined

  /** The messages of lines read from a clean position. */
  def messages(): MessageJoin = new MessageJoin(format, lineLengthMax)

  /** The longest line read whole ([[LineFormat.lineLimit]]). */
  def lineLimit: Int = format.lineLimit(lineLengthMax)

  /**
   * Whether the current message of `m` starts a record, after a record of its stream of
   * `recordBytes` (its messages with their newlines; 0 at a known record start).
   */
  def startsRecord(m: MessageJoin, recordBytes: Long): Boolean =
    recordBytes == 0 || recordBytes + m.length + 1 > bytesMax ||
      compiled.forall { p =>
        p.matcher(new String(m.bytes, m.start, m.length, UTF_8)).find() == patternStarts
      }
}
