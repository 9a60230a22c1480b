package com.hx.spark.sql.connector.aof.files

/**
 * A multi-line record being put together, in an array of its own: its lines lie in the read
 * buffer one at a time, not side by side. Lines are joined by `\n`, each as the [[LineReader]]
 * gives it (without its `\r`), so a record of one line is that line.
 */
final class RecordBuffer {
  private var array = new Array[Byte](4096)
  private var used = 0
  private var firstOffset = 0L
  private var cut = false
  private var counted = 0L

  def bytes: Array[Byte] = array
  def length: Int = used

  /** Where the record's first line starts in its file. */
  def offset: Long = firstOffset

  /** Whether a line of it was cut to `line.length.max`. */
  def truncated: Boolean = cut

  /** Its lines' bytes with their newlines, as [[RecordRule.startsRecord]] counts them. */
  def recordBytes: Long = counted

  /** Starts a record with the reader's current line. */
  def start(lines: LineReader): Unit = {
    used = 0
    counted = 0L
    cut = false
    firstOffset = lines.lineOffset
    append(lines)
  }

  /** Adds the reader's current line to the record. */
  def append(lines: LineReader): Unit = {
    if (counted > 0) put(RecordBuffer.Newline, 0, 1)
    put(lines.lineBytes, lines.lineStart, lines.lineLength)
    counted += lines.lineLength + 1
    cut ||= lines.truncated
  }

  private def put(from: Array[Byte], start: Int, count: Int): Unit = {
    if (used + count > array.length) {
      val grown = math.max(array.length.toLong * 2, used.toLong + count)
      array = java.util.Arrays.copyOf(array, math.min(grown, Int.MaxValue - 8L).toInt)
    }
    System.arraycopy(from, start, array, used, count)
    used += count
  }
}

private object RecordBuffer {
  private val Newline = Array('\n'.toByte)
}
