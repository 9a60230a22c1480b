package com.hx.spark.sql.connector.aof.files.lines

import java.io.Closeable
import java.nio.ByteBuffer
import java.nio.channels.FileChannel

/**
 * The lines of one byte range of a file, read through a fixed buffer: memory does not depend on
 * the range or the file, and positions are Longs throughout.
 *
 * A line belongs to the range holding its first byte. So a range that starts inside a line skips
 * to the next one, and the last line that starts before `until` is read to its separator even
 * past `until`. Ranges can therefore be cut anywhere and every line is still read exactly once.
 * The planner never ends a range after the last complete line, so that separator exists unless
 * the file shrank since; then `incomplete` is set, the partial line is not emitted, and
 * `lineOffset` is where a reader of a longer copy of the file would have to start again. A file
 * cut and written again since it was opened (logrotate's `copytruncate`, its writer writing on)
 * may hold other lines at the planned positions whatever its size: `sameFile`, asked after each
 * read, tells it, and then that read's bytes are not the file's and it is `incomplete` there.
 *
 * Lines end at the file's [[Separator]] (by default `\n`, a `\r` before it not part of the line),
 * found in bytes at whole code units: UTF-16's lines start at even offsets. A line's value is
 * UTF-8 ([[LineDecoder]]): a valid UTF-8 line is read in place, any other decoded. A byte order
 * mark at the file's head (Windows editors and .NET loggers write one) is not part of the first
 * line; the line still starts at offset 0, so its id does not change. In UTF-16 and UTF-32 one
 * at the head of any line is not part of it either: log4j and logback, told to write UTF-16,
 * encode each event apart, each after a mark.
 *
 * Written by hand because Hadoop's LineReader works on streams without positions and treats a
 * lone `\r` as a line end; here only the separator ends a line.
 */
final class LineReader(
    channel: FileChannel,
    from: Long,
    val until: Long,
    lineLengthMax: Int,
    bufferSize: Int = 256 * 1024,
    ending: LineEnding = LineEnding.Default,
    sameFile: () => Boolean = () => true)
    extends Closeable {
  require(from >= 0 && lineLengthMax > 0 && bufferSize > 0)

  private val separator = ending.in(channel)
  private val separatorLength = separator.length
  private val unit = separator.unit
  // Whole units only: a line cut to the maximum is cut between characters of UTF-16.
  private val lengthMax = math.max(unit, lineLengthMax - lineLengthMax % unit)
  private val decoder = new LineDecoder(separator.charset)
  private val utf8 = separator.utf8
  // JVM loggers encode each event in UTF-16 or UTF-32 apart, each with a byte order mark.
  private val marksEveryLine = unit > 1
  private val buffer = ByteBuffer.allocate(math.max(bufferSize, 4 * separatorLength))
  private val bytes = buffer.array()
  // Whether `from` starts a line shows in the separator before it, so reading starts there.
  private var bufferStart = // file position of bytes(0), always at a unit's start
    if (from == 0) 0L else separator.alignUp(0L, math.max(from - separatorLength, 0L))
  private var bufferEnd = 0 // valid bytes in the buffer
  private var cursor = 0 // next byte to look at
  private var eof = false

  private var line = new Array[Byte](math.min(lineLengthMax, 256))
  // The current line is `lineArray[lineFrom, lineFrom + length)`: the buffer itself when the line
  // lies in it whole (most lines: no copy), else `line`, where its pieces were put together.
  private var lineArray = line
  private var lineFrom = 0
  private var length = 0
  // Bytes of the line beyond the maximum, counted up to one more than a `\r` has, and the last
  // of them: a lone `\r` there is the CRLF ending, so the line itself still fits.
  private val carriageReturn = separator.carriageReturn
  private val carriageReturnLast: Byte = carriageReturn.lastOption.getOrElse(0)
  private val overflowMax = carriageReturn.length + 1
  private var overflow = 0
  private val lastOverflow = new Array[Byte](overflowMax)
  private var offset = from
  private var cut = false
  // Whether the searches for the current line looked at a byte other than ASCII.
  private var nonAscii = false
  private var partial = false
  private var started = false
  private var ended = false

  /** Where the current line starts; after `incomplete`, where the unfinished line starts. */
  def lineOffset: Long = offset

  /** Just after the current line's newline: where the next line starts. */
  def lineEnd: Long = bufferStart + cursor
  def lineBytes: Array[Byte] = lineArray
  def lineStart: Int = lineFrom
  def lineLength: Int = length
  def truncated: Boolean = cut
  def incomplete: Boolean = partial

  /** Lines so far that held bytes not of the encoding: each such sequence is now U+FFFD. */
  def invalid: Long = decoder.invalid

  /** Advances to the next line whose first byte lies in `[from, until)`. */
  def next(): Boolean = {
    decoder.reset()
    if (!started) {
      started = true
      ended = from >= until || (from > 0 && !skipToLineStart())
    }
    if (ended) return false
    val position = bufferStart + cursor
    if (position >= until) {
      ended = true
      return false
    }
    offset = position
    if (!readLine()) {
      partial = true
      ended = true
    }
    !ended
  }

  /**
   * Advances to the next line only when that needs no read: the line lies whole in the buffer.
   * So every line returned since the last `next()` stays valid until the next `next()`, which
   * is what lets a batch of lines point into the buffer. False when `next()` must be called.
   */
  def nextInBuffer(): Boolean = {
    if (!started || ended || bufferStart + cursor >= until) return false
    val i = search(cursor, bufferEnd, first = true)
    if (i == bufferEnd) return false
    offset = bufferStart + cursor
    takeLine(i)
    true
  }

  /** Does not close the channel: whoever opened it does. */
  override def close(): Unit = {
    started = true
    ended = true
  }

  /**
   * Moves past the line that holds the byte before `from`: it belongs to the previous range. The
   * scan stops at `until`, so a short range inside a long line costs a buffer, not the line.
   */
  private def skipToLineStart(): Boolean = {
    while (true) {
      val limit = until - bufferStart // a line starting past it is not the range's
      if (cursor + separatorLength > limit) return false
      if (bufferEnd - cursor < separatorLength && !fill()) {
        // Not even `until` is there any more: the lines planned in this range are gone.
        partial = bufferStart + bufferEnd < until
        return false
      }
      val stop = math.min(bufferEnd.toLong, limit).toInt
      val i = separator.find(bytes, cursor, stop)
      if (i < stop) {
        cursor = i + separatorLength
        return true
      }
      cursor = separator.resumeAt(cursor, stop)
    }
    false
  }

  /** Finds the line at the cursor; false when the file ends before its separator. */
  private def readLine(): Boolean = {
    length = 0
    overflow = 0
    val i = search(cursor, bufferEnd, first = true)
    if (i < bufferEnd) {
      takeLine(i)
      return true
    }
    lineArray = line
    lineFrom = 0
    while (true) {
      if (bufferEnd - cursor < separatorLength && !fill()) return false
      val i = search(cursor, bufferEnd, first = false)
      if (i < bufferEnd) {
        append(cursor, i - cursor)
        cursor = i + separatorLength
        endLine()
        return true
      }
      val kept = separator.resumeAt(cursor, bufferEnd)
      append(cursor, kept - cursor)
      cursor = kept
    }
    false
  }

  /**
   * The first separator in `bytes[from, until)` (or `until`), noting whether a byte other than
   * ASCII was looked at on the way: in the line's `first` search, or in any of its searches.
   */
  private def search(from: Int, until: Int, first: Boolean): Int = {
    val found = separator.findNoting(bytes, from, until)
    val noted = (found & ByteSearch.NonAscii) != 0
    nonAscii = noted || (!first && nonAscii)
    found.toInt
  }

  /** The line from the cursor to the separator at `i`, in the buffer: no copy. */
  private def takeLine(i: Int): Unit = {
    lineArray = bytes
    lineFrom = cursor
    val count = i - cursor
    length = math.min(lengthMax, count)
    overflow = 0
    if (count > length) noteOverflow(i - (count - length), count - length)
    cursor = i + separatorLength
    endLine()
  }

  /**
   * A line cut to the maximum is truncated unless all it lost is the `\r` of a CRLF. Then it is
   * decoded: `lineBytes` hold its value. Kept small, the rare cases apart, as it runs per line.
   */
  private def endLine(): Unit = {
    cut = overflow > 0 && lostMoreThanCarriageReturn
    if (overflow == 0 && endsWithCarriageReturn) length -= carriageReturn.length
    if (offset == 0 || marksEveryLine) skipByteOrderMark()
    // ASCII read as UTF-8, most lines of most logs, is its own value: no call at all.
    if (nonAscii || !utf8) decode()
  }

  private def lostMoreThanCarriageReturn: Boolean =
    overflow != carriageReturn.length || !lastOverflow.startsWith(carriageReturn)

  private def endsWithCarriageReturn: Boolean =
    length > 0 && lineArray(lineFrom + length - 1) == carriageReturnLast &&
      separator.endsWith(lineArray, lineFrom, length, carriageReturn)

  private def skipByteOrderMark(): Unit = {
    val mark = separator.byteOrderMark
    if (length >= mark.length && separator.endsWith(lineArray, lineFrom, mark.length, mark)) {
      lineFrom += mark.length
      length -= mark.length
    }
  }

  private def decode(): Unit = {
    decoder.decode(lineArray, lineFrom, length, cut)
    lineArray = decoder.bytes
    lineFrom = decoder.start
    length = decoder.length
  }

  private def append(start: Int, count: Int): Unit = {
    val take = math.min(lengthMax - length, count)
    if (take > 0) {
      if (length + take > line.length) {
        val grown = math.max(line.length.toLong * 2, (length + take).toLong)
        line = java.util.Arrays.copyOf(line, math.min(lengthMax.toLong, grown).toInt)
        lineArray = line
      }
      System.arraycopy(bytes, start, line, length, take)
      length += take
    }
    if (count > take) noteOverflow(start + take, count - take)
  }

  /** Notes `count` bytes of the line past the maximum, at `from` in the buffer. */
  private def noteOverflow(from: Int, count: Int): Unit = {
    // Only the first few matter: more than a `\r` is a cut, whatever they are.
    val take = math.min(count, overflowMax - overflow)
    System.arraycopy(bytes, from, lastOverflow, overflow, math.max(take, 0))
    overflow = math.min(overflowMax, overflow + count)
  }

  /**
   * Reads on, keeping the bytes from the cursor (less than a separator: it may end in the next
   * read). False at the file's end, or once it is not the file opened.
   */
  private def fill(): Boolean = {
    if (eof) return false
    val kept = bufferEnd - cursor
    System.arraycopy(bytes, cursor, bytes, 0, kept)
    bufferStart += cursor
    cursor = 0
    bufferEnd = kept
    buffer.clear()
    buffer.position(kept)
    val n = channel.read(buffer, bufferStart + kept)
    if (n <= 0 || !sameFile()) {
      eof = true
      false
    } else {
      bufferEnd += n
      true
    }
  }
}
