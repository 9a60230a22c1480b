package com.hx.spark.sql.connector.aof.files.records

import com.hx.spark.sql.connector.aof.files.container.{LineChunks, MessageJoin}

/**
 * A multi-line record being put together, in an array of its own: its messages lie in the read
 * buffer one at a time, not side by side. Messages are joined by `\n`, each as [[MessageJoin]]
 * gives it (a line without its `\r`), so a record of one message is that message. Its stream
 * and time are its first message's.
 */
final class RecordBuffer {
  private var array = new Array[Byte](4096)
  private var used = 0
  private var firstOffset = 0L
  private var cut = false
  private var counted = 0L
  private var firstStream = LineChunks.NoStream
  private var firstTime = 0L

  def bytes: Array[Byte] = array
  def length: Int = used

  /** Where the record's first message starts in its file. */
  def offset: Long = firstOffset
  def stream: Int = firstStream
  def timeMicros: Long = firstTime

  /** Whether a line of it was cut to `line.length.max`. */
  def truncated: Boolean = cut

  /** Its messages' bytes with their newlines, as [[RecordRule.startsRecord]] counts them. */
  def recordBytes: Long = counted

  /** Whether it holds no message. */
  def isEmpty: Boolean = counted == 0

  /** Empties it. */
  def clear(): Unit = {
    used = 0
    counted = 0L
  }

  /** Starts a record with the current message. */
  def start(message: MessageJoin): Unit = {
    used = 0
    counted = 0L
    cut = false
    firstOffset = message.offset
    firstStream = message.stream
    firstTime = message.timeMicros
    append(message)
  }

  /** Adds the current message to the record. */
  def append(message: MessageJoin): Unit = {
    if (counted > 0) put(RecordBuffer.Newline, 0, 1)
    put(message.bytes, message.start, message.length)
    counted += message.length + 1
    cut ||= message.truncated
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
