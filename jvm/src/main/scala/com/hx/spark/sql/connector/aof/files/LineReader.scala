package com.hx.spark.sql.connector.aof.files

import java.io.Closeable
import java.nio.ByteBuffer
import java.nio.channels.FileChannel

/**
 * The lines of one byte range of a file, read through a fixed buffer: memory does not depend on
 * the range or the file, and positions are Longs throughout.
 *
 * A line belongs to the range holding its first byte. So a range that starts inside a line skips
 * to the next one, and the last line that starts before `until` is read to its newline even past
 * `until`. Ranges can therefore be cut anywhere and every line is still read exactly once. The
 * planner never ends a range after the last complete line, so that newline exists unless the file
 * shrank since; then `incomplete` is set, the partial line is not emitted, and `lineOffset` is
 * where a reader of a longer copy of the file would have to start again.
 *
 * A UTF-8 byte order mark at the file's head (Windows editors and .NET loggers write one) is not
 * part of the first line; the line still starts at offset 0, so its id does not change.
 *
 * Written by hand because Hadoop's LineReader works on streams without positions and treats a
 * lone `\r` as a line end; here only `\n` ends a line.
 */
final class LineReader(
    channel: FileChannel,
    from: Long,
    val until: Long,
    lineLengthMax: Int,
    bufferSize: Int = 256 * 1024)
    extends Closeable {
  require(from >= 0 && lineLengthMax > 0 && bufferSize > 0)

  private val buffer = ByteBuffer.allocate(bufferSize)
  private val bytes = buffer.array()
  // Whether `from` starts a line shows in the byte before it, so reading starts there.
  private var bufferStart = math.max(from - 1, 0L) // file position of bytes(0)
  private var bufferEnd = 0 // valid bytes in the buffer
  private var cursor = 0 // next byte to look at
  private var eof = false

  private var line = new Array[Byte](math.min(lineLengthMax, 256))
  // The current line is `lineArray[lineFrom, lineFrom + length)`: the buffer itself when the line
  // lies in it whole (most lines: no copy), else `line`, where its pieces were put together.
  private var lineArray = line
  private var lineFrom = 0
  private var length = 0
  // Bytes of the line beyond lineLengthMax (counted up to 2) and the last of them: a single
  // `\r` there is the CRLF ending, so the line itself still fits.
  private var overflow = 0
  private var lastOverflow: Byte = 0
  private var offset = from
  private var cut = false
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

  /** Advances to the next line whose first byte lies in `[from, until)`. */
  def next(): Boolean = {
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
    val i = Newlines.find(bytes, cursor, bufferEnd)
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
    while (bufferStart + cursor < until) {
      if (cursor == bufferEnd && !fill()) {
        // Not even `until` is there any more: the lines planned in this range are gone.
        partial = true
        return false
      }
      val stop = math.min(bufferEnd.toLong, until - bufferStart).toInt
      val i = Newlines.find(bytes, cursor, stop)
      if (i < stop) {
        cursor = i + 1
        return true
      }
      cursor = i
    }
    false
  }

  /** Finds the line at the cursor; false when the file ends before its newline. */
  private def readLine(): Boolean = {
    length = 0
    overflow = 0
    val i = Newlines.find(bytes, cursor, bufferEnd)
    if (i < bufferEnd) {
      takeLine(i)
      return true
    }
    lineArray = line
    lineFrom = 0
    while (true) {
      if (cursor == bufferEnd && !fill()) return false
      val i = Newlines.find(bytes, cursor, bufferEnd)
      append(cursor, i - cursor)
      if (i < bufferEnd) {
        cursor = i + 1
        endLine()
        return true
      }
      cursor = i
    }
    false
  }

  /** The line from the cursor to the newline at `i`, in the buffer: no copy. */
  private def takeLine(i: Int): Unit = {
    lineArray = bytes
    lineFrom = cursor
    val count = i - cursor
    length = math.min(lineLengthMax, count)
    overflow = 0
    if (count > length) {
      overflow = math.min(2, count - length)
      lastOverflow = bytes(i - 1)
    }
    cursor = i + 1
    endLine()
  }

  /** A line cut to the maximum is truncated unless all it lost is the `\r` of a CRLF. */
  private def endLine(): Unit = {
    cut = overflow > 1 || (overflow == 1 && lastOverflow != '\r')
    if (overflow == 0 && length > 0 && lineArray(lineFrom + length - 1) == '\r') length -= 1
    if (offset == 0 && length >= 3 && startsWithByteOrderMark) {
      lineFrom += 3
      length -= 3
    }
  }

  private def startsWithByteOrderMark: Boolean =
    lineArray(lineFrom) == 0xef.toByte && lineArray(lineFrom + 1) == 0xbb.toByte &&
      lineArray(lineFrom + 2) == 0xbf.toByte

  private def append(start: Int, count: Int): Unit = {
    val take = math.min(lineLengthMax - length, count)
    if (take > 0) {
      if (length + take > line.length) {
        val grown = math.max(line.length.toLong * 2, (length + take).toLong)
        line = java.util.Arrays.copyOf(line, math.min(lineLengthMax.toLong, grown).toInt)
        lineArray = line
      }
      System.arraycopy(bytes, start, line, length, take)
      length += take
    }
    if (count > take) {
      overflow = math.min(2, overflow + (count - take))
      lastOverflow = bytes(start + count - 1)
    }
  }

  private def fill(): Boolean = {
    if (eof) return false
    bufferStart += bufferEnd
    cursor = 0
    bufferEnd = 0
    buffer.clear()
    val n = channel.read(buffer, bufferStart)
    if (n <= 0) {
      eof = true
      false
    } else {
      bufferEnd = n
      true
    }
  }
}
