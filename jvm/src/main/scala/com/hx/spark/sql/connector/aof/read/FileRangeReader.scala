package com.hx.spark.sql.connector.aof.read

import java.io.Closeable
import java.nio.channels.{ClosedByInterruptException, FileChannel}
import java.nio.file.{Path, Paths}

import org.apache.spark.unsafe.types.UTF8String
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.container.MessageJoin
import com.hx.spark.sql.connector.aof.files.identity.{KnownFile, Prefixes}
import com.hx.spark.sql.connector.aof.files.lines.LineReader
import com.hx.spark.sql.connector.aof.files.listing.{FileSearch, SourceFiles}
import com.hx.spark.sql.connector.aof.files.records.RecordJoin
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
 * With `records`, each row is a message of a container runtime's lines, or a multi-line record.
 * The range's two ends are record starts at clean positions (the planner ends batches only there,
 * [[com.hx.spark.sql.connector.aof.plan.Tasks]] never cuts such a range), so records are found
 * from `from` by the rule alone and the last one ends at `until`. Lines not of the format are
 * rows of their own, counted. A range that carries the open tail of the file it continues (a
 * runtime's file renamed amid a message, `FileRange.continues`) reads that tail first, and its
 * messages go on in the range's lines: rows that start in the tail carry that file's path and id.
 *
 * With a [[LineFilter]], only the lines (or records) it keeps become rows; the others are counted.
 * With [[PathColumns]], each row carries its file's path's values. With a [[FileHeader]], the
 * lines at the file's head are not rows: each row carries them, read from the file it is read
 * from, whatever the range's start.
 */
final class FileRangeReader(
    range: FileRange,
    sourceFiles: SourceFiles,
    settings: ReadSettings,
    failOnDataLoss: Boolean,
    counters: ReadCounters)
    extends Closeable {
  import FileRangeReader.log
  import settings.{ending, grouping, identity, lineFilter, lineLengthMax}
  // Asked of every line: a null, not an Option's closure, in the loop.
  private val filter = lineFilter.orNull

  // A file is opened only once it starts with the planned head; it still does after a read
  // unless it was cut and written again, and then that read's bytes are not the planned ones.
  private def sourceOf(r: FileRange, path: Path, channel: FileChannel, from: Long) =
    new RangeSource(
      path,
      channel,
      from,
      r.until,
      grouping.fold(lineLengthMax)(_.lineLimit),
      settings.pathColumns,
      settings.header,
      ending,
      () => identity.keepsHead(planned(r), Prefixes.md5(channel, r.head.length))
    )

  /** What the plan knew of `r`'s file: its key, the range's end and its head. */
  private def planned(r: FileRange): KnownFile = KnownFile(r.key, r.until, r.head)

  private def searchFor(r: FileRange): FileSearch = new FileSearch(
    planned(r),
    Paths.get(r.path),
    sourceFiles,
    identity,
    s"file ${r.fileId}, bytes ${r.from} to ${r.until}")
  private val search = searchFor(range)
  private var lastOpened: Option[RangeSource] = None
  // The open tail of the file this one continues, read first: its messages' offsets are moved
  // below 0 ([[MessageJoin.take]]), and rows that start there carry that file's path and id.
  private val tailRange = range.continues
  private val tailShift = tailRange.fold(0L)(-_.until)
  private var tail: Option[RangeSource] = tailRange.flatMap { t =>
    val found = searchFor(t).fileOrCopy().map { case (p, c) => sourceOf(t, p, c, t.from) }
    if (found.isEmpty) lost(t, t.from, "it is gone")
    found
  }
  private val tailValues = tail.map(t => (t.pathValue, t.pathValues))
  private val tailFileIdValue = tailRange.map(t => UTF8String.fromString(t.fileId))
  private var source: Option[RangeSource] = open(range.from)
  // A message found but not given yet: of the other file than the batch it was found for.
  private var held = false
  private val counts =
    new RangeCounts(range, grouping.map(_.format.name), lineLengthMax, ending.encoding)
  private val messages: Option[MessageJoin] = grouping.map(_.messages())
  private val recordJoin: Option[RecordJoin] = grouping.filter(_.multiline).map(new RecordJoin(_))
  // The range's lines are all read, and its records all complete.
  private var finished = false
  // Where the lines after those returned so far start: a query stopped here goes on from there.
  private var consumed = range.from
  private val hostValue = UTF8String.fromString(range.host)
  private val fileIdValue = UTF8String.fromString(range.fileId)

  /**
   * Fills `batch` with the range's next lines, at least one, all of one file and all valid until
   * the next call (they point into the read buffer); false when the range has no more.
   */
  def nextBatch(batch: LineBatch): Boolean = {
    val more = (recordJoin, messages) match {
      case (Some(join), Some(m)) => nextRecord(join, m, batch)
      case (None, Some(m)) => nextMessages(m, batch)
      case _ => nextLines(batch)
    }
    if (more) counts.rows += batch.columns.numRows()
    consumed =
      if (!more || finished && !recordJoin.exists(_.hasReady)) range.until
      else if (grouping.isEmpty) source.get.lines.lineEnd
      else {
        // Real-time mode reads text only, where a record's first line starts where it does.
        val next = recordJoin.fold(Long.MaxValue)(j => j.openFrom min j.readyFrom)
        if (next < Long.MaxValue) next else source.fold(range.until)(_.lines.lineEnd)
      }
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
      found = source.get.lines.lineOffset >= source.get.headerEnd && kept(source.get.lines)
    }
    val s = source.get
    batch.reset(hostValue, s.pathValue, fileIdValue, s.pathValues, s.headerValue)
    add(s.lines, batch)
    while (!batch.isFull && s.lines.nextInBuffer()) if (kept(s.lines)) add(s.lines, batch)
    true
  }

  /** Whether the filter keeps the current line; one it drops is counted. */
  private def kept(lines: LineReader): Boolean =
    filter == null || filter.keeps(lines.lineBytes, lines.lineStart, lines.lineLength) || {
      counts.filtered += 1
      false
    }

  /**
   * The messages of a container runtime's lines, as many as the batch takes that need no read:
   * a message in one chunk points into the read buffer, a joined one into an array of its own.
   */
  private def nextMessages(m: MessageJoin, batch: LineBatch): Boolean = {
    var found = held
    while (!found) {
      if (!nextMessage(m)) return false
      found = keptMessage(m)
    }
    held = false
    val inTail = m.offset < 0
    resetFor(batch, inTail)
    addMessage(m, batch)
    val lines = tail.orElse(source).fold[LineReader](null)(_.lines)
    val at = shift
    while (!held && !batch.isFull && lines != null && lines.nextInBuffer()) {
      if (m.take(lines, at) && keptMessage(m)) {
        if ((m.offset < 0) == inTail) addMessage(m, batch) else held = true
      }
    }
    true
  }

  /** `batch` emptied for rows of the range's file, or of the file it continues. */
  private def resetFor(batch: LineBatch, inTail: Boolean): Unit = tailValues match {
    case Some((path, values)) if inTail => batch.reset(hostValue, path, tailFileIdValue.get, values)
    case _ =>
      // A record read before its file was lost is read under the name it was read by.
      val s = lastOpened.get
      batch.reset(hostValue, s.pathValue, fileIdValue, s.pathValues)
  }

  private def shift: Long = if (tail.nonEmpty) tailShift else 0L

  /** A row's offset in its file. */
  private def inFile(offset: Long): Long = if (offset < 0) offset - tailShift else offset

  private def keptMessage(m: MessageJoin): Boolean =
    filter == null || filter.keeps(m.bytes, m.start, m.length) || { counts.filtered += 1; false }

  private def addMessage(m: MessageJoin, batch: LineBatch): Unit = {
    if (m.truncated) counts.truncated += 1
    batch.add(m.bytes, m.start, m.length, inFile(m.offset), m.stream, m.timeMicros)
  }

  /** The next message; at the range's end, those still open, as the range ends flushed. */
  private def nextMessage(m: MessageJoin): Boolean = {
    while (nextLine()) if (m.take(tail.orElse(source).get.lines, shift)) return true
    // A file cut short as it was read: what was open is lost with the rest.
    (source.nonEmpty || lastOpened.isEmpty) && m.drain()
  }

  /** One record kept, read into a buffer of its own: the batch is that one row. */
  private def nextRecord(join: RecordJoin, m: MessageJoin, batch: LineBatch): Boolean = {
    while (true) {
      while (!join.hasReady) {
        if (finished) return false
        if (nextMessage(m)) join.add(m)
        else {
          join.finish()
          finished = true
        }
      }
      val record = join.take()
      if (lineFilter.forall(_.keeps(record.bytes, 0, record.length))) {
        if (record.truncated) counts.truncated += 1
        resetFor(batch, record.offset < 0)
        val offset = inFile(record.offset)
        if (grouping.get.format.byRuntime) {
          batch.add(record.bytes, 0, record.length, offset, record.stream, record.timeMicros)
        } else batch.add(record.bytes, 0, record.length, offset)
        counts.joined += 1
        return true
      }
      counts.filtered += 1
    }
    false
  }

  private def add(lines: LineReader, batch: LineBatch): Unit = {
    if (lines.truncated) counts.truncated += 1
    batch.add(lines.lineBytes, lines.lineStart, lines.lineLength, lines.lineOffset)
  }

  private def nextLine(): Boolean = tail match {
    case Some(t) if t.lines.next() => true
    case Some(t) =>
      done(t)
      tail = None
      if (t.lines.incomplete) lost(tailRange.get, t.lines.lineOffset, s"${t.path} was cut short")
      nextLine()
    case None => nextInRange()
  }

  private def nextInRange(): Boolean = source match {
    case None => false
    case Some(s) if s.lines.next() => true
    case Some(s) if s.lines.incomplete =>
      // Cut short (or cut and written again) as it was read: go on from a copy, at the line
      // not finished.
      val at = s.lines.lineOffset
      done(s)
      source = opened(search.copyOnly(), at)
      if (source.isEmpty) {
        lost(range, at, s"${s.path} was cut short or written again as it was read, and no copy")
      }
      nextInRange()
    case Some(_) => false
  }

  override def close(): Unit = {
    tail.foreach(done)
    source.foreach(done)
    counts.report(counters, consumed - range.from, messages.fold(0L)(_.malformed), log)
  }

  /** Closes a file read from, counting its lines of invalid bytes. */
  private def done(s: RangeSource): Unit = {
    counts.invalid += s.lines.invalid
    s.close()
  }

  private def open(from: Long): Option[RangeSource] = {
    val found = opened(search.fileOrCopy(), from)
    if (found.isEmpty) lost(range, from, "it is gone or cut short")
    found
  }

  private def opened(found: Option[(Path, FileChannel)], from: Long): Option[RangeSource] = {
    val s = found.map { case (p, channel) => sourceOf(range, p, channel, from) }
    s.foreach(o => lastOpened = Some(o))
    s
  }

  private def lost(r: FileRange, from: Long, why: String): Unit = {
    // A task killed as it read (its query stopped): its reads failed, not its file.
    if (Thread.currentThread().isInterrupted) throw new ClosedByInterruptException()
    val what = s"${r.host}:${r.path} (file ${r.fileId}) bytes $from to ${r.until}"
    DataLoss.handle(s"$what; $why", failOnDataLoss, log.warn(_))
    counters.bytesLost.add(r.until - from)
  }
}

object FileRangeReader {
  // One a JVM: log4j finds a logger's context by walking the caller's stack, and a real-time
  // task makes a reader at each look.
  private val log = LoggerFactory.getLogger(classOf[FileRangeReader])

  /** A reader of `range` as a read task of the endpoint's source reads it. */
  def of(
      range: FileRange,
      endpoint: EndpointSpec,
      failOnDataLoss: Boolean,
      counters: ReadCounters): FileRangeReader =
    new FileRangeReader(range, endpoint.files, endpoint.read, failOnDataLoss, counters)
}
