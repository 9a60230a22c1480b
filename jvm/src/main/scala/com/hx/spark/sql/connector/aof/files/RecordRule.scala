package com.hx.spark.sql.connector.aof.files

import java.nio.charset.StandardCharsets.UTF_8
import java.util.regex.Pattern

/**
 * How lines group into multi-line records (a Java stack trace, say). A record starts at a line
 * that `pattern` finds something in (with `patternStarts`) or finds nothing in (a pattern of
 * continuation lines, such as `^\s`), and at a line that would take the record past `bytesMax`.
 *
 * Whether a line starts a record depends only on the line and on the record before it since a
 * known record start, never on time: so the node that finds where records end and the task that
 * reads them, both starting at the driver's position, agree. Time enters once, in the plan: a
 * file's last record is complete once the file went `flushMs` without a write, and the driver
 * then ends the batch after it, which makes that end a record start for every later reader.
 *
 * @param lineLengthMax lines are cut to it before they are matched, as the reader cuts them
 * @param scanWindow    how far past the driver's position a node looks for record ends in one
 *                      trigger (a few times the smallest byte limit); None looks to the end
 */
final case class RecordRule(
    pattern: String,
    patternStarts: Boolean,
    bytesMax: Int,
    flushMs: Long,
    lineLengthMax: Int,
    scanWindow: Option[Long]) {
  @transient private lazy val compiled = Pattern.compile(pattern)

  /**
   * Whether the line `bytes[start, start + length)` starts a record, after a record of
   * `recordBytes` (its lines with their newlines; 0 at a known record start).
   */
  def startsRecord(bytes: Array[Byte], start: Int, length: Int, recordBytes: Long): Boolean =
    recordBytes == 0 || recordBytes + length + 1 > bytesMax ||
      compiled.matcher(new String(bytes, start, length, UTF_8)).find() == patternStarts
}
