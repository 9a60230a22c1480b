package com.hx.spark.sql.connector.aof.stream

import java.io.Closeable
import java.nio.channels.{ClosedByInterruptException, FileChannel}
import java.nio.file.{Path, Paths}

import org.apache.spark.unsafe.types.UTF8String
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.{
  FileIdentity,
  FileSearch,
  KnownFile,
  LineFilter,
  LineReader,
  RecordBuffer,
  RecordRule,
  SourceFiles
}
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.plan.FileRange

/**
 * Reads one planned range, on the host that holds the file. The file is found by its key, so a
 * file renamed since planning is still read, from its new name; a file cut short since (as
 * logrotate's `copytruncate` does) is read on from a copy that starts with the same head and
 * reaches the range's end ([[FileSearch]]). Either way a replayed batch reads the same bytes.
 * What is gone is counted as lost (or fails the task with `fail.on.data.loss`); a file that is
 * there but cannot be read (its permissions, an I/O error) fails the task, which Spark tries
 * again: its bytes are not lost. A task killed as it reads loses nothing either. Over-long lines
 * are counted.
 *
 * With `records`, each row is a multi-line record. The range's two ends are record starts (the
 * planner ends batches only there, [[com.hx.spark.sql.connector.aof.plan.Tasks]] never cuts such a
 * range), so records are found from `from` by the rule alone and the last one ends at `until`.
 *
 * With a [[LineFilter]], only the lines (or records) it keeps become rows; the others are counted.
 */
final class FileRangeReader(
    range: FileRange,
    sourceFiles: SourceFiles,
    lineLengthMax: Int,
    records: Option[RecordRule],
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    identity: FileIdentity,
    lineFilter: Option[LineFilter] = None)
    extends Closeable {
  private val log = LoggerFactory.getLogger(getClass)

  private final class Source(val path: Path, channel: FileChannel, from: Long) {
    val lines = new LineReader(channel, from, range.until, lineLengthMax)
    val pathValue: UTF8String = UTF8String.fromString(path.toString)
    def close(): Unit = channel.close()
  }

  private val search = new FileSearch(
    KnownFile(range.key, range.until, range.head),
    Paths.get(range.path),
    sourceFiles,
    identity,
    s"file ${range.fileId}, bytes ${range.from} to ${range.until}")
  private var source: Option[Source] = open(range.from)
  private var truncated = 0L
  private var filtered = 0L
  private val record = new RecordBuffer
  // The current line starts the next record, and is not in `record` yet.
  private var lineWaiting = false
  // Where the lines after those returned so far start: a query stopped here goes on from there.
  private var consumed = range.from
  private val hostValue = UTF8String.fromString(range.host)
  private val fileIdValue = UTF8String.fromString(range.fileId)

  /**
   * Fills `batch` with the range's next lines, at least one, all of one file and all valid until
   * the next call (they point into the read buffer); false when the range has no more.
   */
  def nextBatch(batch: LineBatch): Boolean = {
    val more = records match {
      case Some(rule) => nextRecord(rule, batch)
      case None => nextLines(batch)
    }
    consumed =
      if (!more) range.until
      else if (records.isEmpty) source.get.lines.lineEnd
      else if (lineWaiting) source.get.lines.lineOffset
      else range.until
    more
  }

  /**
   * Where the line (or record) after the last one returned starts; the lines the filter dropped
   * on the way count as read. The range's end once it has no more.
   */
  def resumeAt: Long = consumed

  private def nextLines(batch: LineBatch): Boolean = {
    var found = false
    while (!found) {
      if (!nextLine()) return false
      found = kept(source.get.lines)
    }
    val s = source.get
    batch.reset(hostValue, s.pathValue, fileIdValue)
    add(s.lines, batch)
    while (!batch.isFull && s.lines.nextInBuffer()) if (kept(s.lines)) add(s.lines, batch)
    true
  }

  /** Whether the filter keeps the current line; one it drops is counted. */
  private def kept(lines: LineReader): Boolean = lineFilter.forall { f =>
    f.keeps(lines.lineBytes, lines.lineStart, lines.lineLength) || { filtered += 1; false }
  }

  /** One record kept, read into a buffer of its own: the batch is that one row. */
  private def nextRecord(rule: RecordRule, batch: LineBatch): Boolean = {
    while (true) {
      if (!lineWaiting && !nextLine()) return false
      val first = source.get
      record.start(first.lines)
      lineWaiting = false
      while (!lineWaiting && nextLine()) {
        val lines = source.get.lines
        val starts =
          rule.startsRecord(lines.lineBytes, lines.lineStart, lines.lineLength, record.recordBytes)
        if (starts) lineWaiting = true else record.append(lines)
      }
      if (lineFilter.forall(_.keeps(record.bytes, 0, record.length))) {
        if (record.truncated) truncated += 1
        batch.reset(hostValue, first.pathValue, fileIdValue)
        batch.add(record.bytes, 0, record.length, record.offset)
        return true
      }
      filtered += 1
    }
    false
  }

  private def add(lines: LineReader, batch: LineBatch): Unit = {
    if (lines.truncated) truncated += 1
    batch.add(lines.lineBytes, lines.lineStart, lines.lineLength, lines.lineOffset)
  }

  private def nextLine(): Boolean = source match {
    case None => false
    case Some(s) if s.lines.next() => true
    case Some(s) if s.lines.incomplete =>
      // Cut short while we read: go on from a copy, at the line we could not finish.
      val at = s.lines.lineOffset
      s.close()
      source = opened(search.copyOnly(), at)
      if (source.isEmpty) lost(at, s"${s.path} ended inside a line that was complete when planned")
      nextLine()
    case Some(_) => false
  }

  override def close(): Unit = {
    if (filtered > 0) counters.linesFiltered.add(filtered)
    if (truncated > 0) {
      counters.linesTruncated.add(truncated)
      log.warn(
        s"aof: $truncated lines of ${range.path} in bytes ${range.from} to ${range.until} were " +
          s"longer than $lineLengthMax bytes (line.length.max) and were cut to that length")
    }
    source.foreach(_.close())
  }

  private def open(from: Long): Option[Source] = {
    val found = opened(search.fileOrCopy(), from)
    if (found.isEmpty) lost(from, "it is gone or cut short")
    found
  }

  private def opened(found: Option[(Path, FileChannel)], from: Long): Option[Source] =
    found.map { case (p, channel) => new Source(p, channel, from) }

  private def lost(from: Long, why: String): Unit = {
    // A task killed as it read (its query stopped): its reads failed, not its file.
    if (Thread.currentThread().isInterrupted) throw new ClosedByInterruptException()
    val what = s"${range.host}:${range.path} (file ${range.fileId}) bytes $from to ${range.until}"
    DataLoss.handle(s"$what; $why", failOnDataLoss, log.warn(_))
    counters.bytesLost.add(range.until - from)
  }
}

object FileRangeReader {

  /** A reader of `range` as a read task of the endpoint's source reads it. */
  def of(
      range: FileRange,
      endpoint: EndpointSpec,
      lineLengthMax: Int,
      failOnDataLoss: Boolean,
      counters: ReadCounters): FileRangeReader =
    new FileRangeReader(
      range,
      endpoint.files,
      lineLengthMax,
      endpoint.records,
      failOnDataLoss,
      counters,
      endpoint.identity,
      endpoint.lineFilter)
}
