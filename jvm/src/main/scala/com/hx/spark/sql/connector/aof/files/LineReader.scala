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
 * shrank since; then `incomplete` is set and the partial line is not emitted.
 *
 * Written by hand because Hadoop's LineReader works on streams without positions and treats a
 * lone `\r` as a line end; here only `\n` ends a line.
 */
final class LineReader(
    channel: FileChannel,
    from: Long,
    until: Long,
    lineLengthMax: Int,
    bufferSize: Int = 256 * 1024)
    extends Closeable {
  require(lineLengthMax > 0 && bufferSize > 0)

  private val buffer = ByteBuffer.allocate(bufferSize)
  private val bytes = buffer.array()
  private var bufferStart = from // file position of bytes(0)
  private var bufferEnd = 0 // valid bytes in the buffer
  private var cursor = 0 // next byte to look at
  private var eof = false

  private var line = new Array[Byte](math.min(lineLengthMax, 256))
  private var length = 0
  private var offset = -1L
  private var cut = false
  private var ended = false
  private var partial = false
  private var started = false

  def lineOffset: Long = offset
  def lineBytes: Array[Byte] = line
  def lineLength: Int = length
  def truncated: Boolean = cut
  def incomplete: Boolean = partial

  /** Advances to the next line whose first byte lies in `[from, until)`. */
  def next(): Boolean = {
    if (ended) return false
    if (!started) {
      started = true
      if (from > 0 && !precededByNewline()) skipPastNewline()
    }
    val position = bufferStart + cursor
    if (position >= until || ended) {
      ended = true
      return false
    }
    offset = position
    length = 0
    cut = false
    if (readLine()) true
    else {
      partial = true
      ended = true
      false
    }
  }

  override def close(): Unit = ended = true

  private def precededByNewline(): Boolean = {
    val one = ByteBuffer.allocate(1)
    channel.read(one, from - 1) == 1 && one.get(0) == '\n'
  }

  /** Skips the line `from` falls inside; it belongs to the previous range. */
  private def skipPastNewline(): Unit = {
    while (true) {
      if (cursor == bufferEnd && !fill()) {
        ended = true
        return
      }
      var i = cursor
      while (i < bufferEnd && bytes(i) != '\n') i += 1
      if (i < bufferEnd) {
        cursor = i + 1
        return
      }
      cursor = i
    }
  }

  /** Copies the line at the cursor; false when the file ends before its newline. */
  private def readLine(): Boolean = {
    while (true) {
      if (cursor == bufferEnd && !fill()) return false
      var i = cursor
      while (i < bufferEnd && bytes(i) != '\n') i += 1
      append(cursor, i - cursor)
      if (i < bufferEnd) {
        cursor = i + 1
        if (length > 0 && line(length - 1) == '\r' && !cut) length -= 1
        return true
      }
      cursor = i
    }
    false
  }

  private def append(start: Int, count: Int): Unit = {
    val room = lineLengthMax - length
    val take = math.min(room, count)
    if (take < count) cut = true
    if (take > 0) {
      if (length + take > line.length) {
        line = java.util.Arrays
          .copyOf(line, math.min(lineLengthMax, math.max(line.length * 2, length + take)))
      }
      System.arraycopy(bytes, start, line, length, take)
      length += take
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
