package com.hx.spark.sql.connector.aof.stream

import java.io.{Closeable, IOException}
import java.nio.channels.{ClosedByInterruptException, FileChannel}
import java.nio.file.{Files, NoSuchFileException, Path, Paths, StandardOpenOption}

import scala.collection.JavaConverters._

import org.apache.spark.unsafe.types.UTF8String
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.{
  Compression,
  FileIdentity,
  FileKey,
  Fingerprint,
  Gunzipped,
  KnownFile,
  LineFilter,
  LineReader,
  Prefixes,
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
 * reaches the range's end. Both are looked for beside the planned file first, then in the paths'
 * other directories (logrotate's `olddir`, when a path names it); a copy never among the files
 * `exclude` leaves out. Either way a replayed batch
 * reads the same bytes. What is gone is counted as lost (or fails the task with
 * `fail.on.data.loss`); a file that is there but cannot be read (its permissions, an I/O error)
 * fails the task, which Spark tries again: its bytes are not lost. Over-long lines are counted.
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
      source = lookedFor(copy(at))
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
    val found = lookedFor(byKey(from).orElse(copy(from)))
    if (found.isEmpty) lost(from, "it is gone or cut short")
    found
  }

  /**
   * `find`, tried over several listings: a rotation renaming files while we look can hide the
   * one we look for (listed under a name it leaves before we open it, and not yet listed under
   * its next), and a file taken for gone loses its bytes.
   */
  private def lookedFor(find: => Option[Source]): Option[Source] =
    Iterator.fill(FileRangeReader.Listings)(find).collectFirst { case Some(s) => s }

  /** The file itself, under its planned name or the one it was renamed to since. */
  private def byKey(from: Long): Option[Source] = {
    val planned = Paths.get(range.path)
    val there =
      if (keyOf(planned).contains(range.key)) openOurs(planned, from) else None
    // Renamed since planning, or just now, between the look at its name and the open.
    there.orElse(files().find(p => keyOf(p).contains(range.key)).flatMap(openOurs(_, from)))
  }

  /** The planned file itself: one that is there but cannot be opened is not lost. */
  private def openOurs(p: Path, from: Long): Option[Source] =
    try openAs(p, range.key, from, FileChannel.open(p, StandardOpenOption.READ), ofKey = true)
    catch {
      case _: NoSuchFileException => None
      case e: IOException =>
        throw new IOException(
          s"aof: cannot read $p (file ${range.fileId}, bytes $from to ${range.until}): $e. " +
            "Its bytes are still there, so the task fails, to be tried again, rather than " +
            "count them lost",
          e
        )
    }

  /** Another file in its directory that starts like this one and holds the whole range. */
  private def copy(from: Long): Option[Source] = {
    def open(p: Path) =
      try Some(FileChannel.open(p, StandardOpenOption.READ))
      catch { case _: IOException => None }
    val found = files()
      .filterNot(sourceFiles.isExcluded)
      .flatMap(p =>
        keyOf(p)
          .filter(_ != range.key)
          .flatMap(k => open(p).flatMap(openAs(p, k, from, _, ofKey = false))))
      .take(1)
      .toList
      .headOption
    found.foreach(s => log.info(s"aof: ${range.path} was cut short; reading its copy ${s.path}"))
    found
  }

  /**
   * `p` opened, if once open it still is the file `key`, starts with the planned head and holds
   * the whole range. Checked after the open: a rotation renames files in quick succession, and
   * the name looked at a moment ago may already be another file's (whose lines would then be
   * read twice). A gzip file is read as what it decompresses to, as its node described it: the
   * planned file itself, or the compressed rotation of one deleted since. It is decompressed
   * only once its head is the planned one, as [[FileIdentity]] judges a head.
   *
   * @param ofKey whether `p` is the planned key's file, or may be a copy of it
   */
  private def openAs(
      p: Path,
      key: FileKey,
      from: Long,
      file: FileChannel,
      ofKey: Boolean): Option[Source] = {
    val planned = KnownFile(range.key, range.until, range.head)
    def holdsRange(size: Long, head: => Option[Fingerprint]) = FileIdentity.Same == {
      if (ofKey) identity.ofKey(planned, size, head, None)
      else identity.ofCopy(planned, size, head, None)
    }
    val lines =
      try {
        if (!keyOf(p).contains(key)) None
        else
          Compression.of(file) match {
            case None => Some(file)
            // Its size is known only once decompressed: the head alone decides whether to.
            case Some(Compression.Gzip)
                if holdsRange(range.until, Gunzipped.headMd5(file, range.head.length)) =>
              Some(Gunzipped.open(file))
            case Some(_) => None
          }
      } catch { case _: IOException => None }
    if (!lines.contains(file)) file.close()
    val holds =
      try lines.exists(c => holdsRange(c.size(), Prefixes.md5(c, range.head.length)))
      catch { case _: IOException => false }
    if (holds) Some(new Source(p, lines.get, from))
    else {
      lines.foreach(_.close())
      None
    }
  }

  private def keyOf(p: Path): Option[FileKey] =
    try Some(FileKey.of(p))
    catch { case _: IOException => None }

  /**
   * The files beside the planned one, then those of the paths' other directories, each listed
   * only when reached: a rotation renames and copies within a directory, or into another.
   */
  private def files(): Iterator[Path] = {
    val planned = Paths.get(range.path).getParent
    // One that cannot be listed fails the task, to be tried again: its files are not known gone.
    // `++` lists the others only once reached.
    (Iterator(planned) ++ sourceFiles.directories().iterator.map(_.path).filter(_ != planned))
      .flatMap(filesIn)
  }

  private def filesIn(directory: Path): Seq[Path] =
    if (!Files.isDirectory(directory)) Nil
    else {
      val listing = Files.list(directory)
      try listing.iterator().asScala.filter(Files.isRegularFile(_)).toVector
      finally listing.close()
    }

  private def lost(from: Long, why: String): Unit = {
    // A task killed as it read (its query stopped): its reads failed, not its file.
    if (Thread.currentThread().isInterrupted) throw new ClosedByInterruptException()
    val what = s"${range.host}:${range.path} (file ${range.fileId}) bytes $from to ${range.until}"
    DataLoss.handle(s"$what; $why", failOnDataLoss, log.warn(_))
    counters.bytesLost.add(range.until - from)
  }
}

object FileRangeReader {
  // Listings before a file counts as gone; a rotation's renames take milliseconds.
  private val Listings: Int = 10

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
