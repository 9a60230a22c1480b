package com.hx.spark.sql.connector.aof.read

import org.slf4j.Logger

import com.hx.spark.sql.connector.aof.plan.FileRange

/**
 * What the read of one range counted, line by line: rows, records joined, lines the filter
 * dropped, lines cut to `line.length.max`, lines of invalid bytes. Added to the task's counters
 * once the range is read, each kind of fault warned about once for the range.
 */
private[read] final class RangeCounts(
    range: FileRange,
    format: Option[String],
    lineLengthMax: Int,
    encoding: String) {
  var rows = 0L
  var joined = 0L
  var filtered = 0L
  var truncated = 0L
  var invalid = 0L

  /**
   * Adds the range's counts to `counters`, with the bytes it read and its lines not of the
   * `format` (`malformed`), and warns of its faults.
   */
  def report(counters: ReadCounters, bytesRead: Long, malformed: Long, log: Logger): Unit = {
    counters.linesRead.add(rows)
    counters.bytesRead.add(bytesRead)
    counters.filesRead.add(1)
    if (joined > 0) counters.recordsJoined.add(joined)
    if (filtered > 0) counters.linesFiltered.add(filtered)
    val where = s"${range.path} in bytes ${range.from} to ${range.until}"
    if (malformed > 0) {
      counters.linesMalformed.add(malformed)
      log.warn(
        s"aof: $malformed lines of $where are not of the format '${format.getOrElse("")}' (option " +
          "'format'): each is a row as written, with no stream or time")
    }
    if (truncated > 0) {
      counters.linesTruncated.add(truncated)
      log.warn(
        s"aof: $truncated lines of $where were longer than $lineLengthMax bytes " +
          "(line.length.max) and were cut to that length")
    }
    if (invalid > 0) {
      counters.linesInvalidEncoding.add(invalid)
      log.warn(
        s"aof: $invalid lines of $where held bytes that are not $encoding (option " +
          "'encoding'); each such sequence was read as U+FFFD")
    }
  }
}
