package com.hx.spark.sql.connector.aof.files.records

import com.hx.spark.sql.connector.aof.files.container.{Message, MessageJoin}

/**
 * A multi-line record being put together, in an array of its own: its messages lie in the read
 * buffer one at a time, not side by side. Messages are joined by `\n`, each as [[MessageJoin]]
 * gives it (a line without its `\r`), so a record of one message is that message. Its stream
 * and time are its first message's.
 */
final class RecordBuffer extends Message {
  array = new Array[Byte](4096)
  private var counted = 0L

  /** Its messages' bytes with their newlines, as [[RecordRule.startsRecord]] counts them. */
  def recordBytes: Long = counted

  /** Whether it holds no message. */
  def isEmpty: Boolean = counted == 0

  /** Empties it. */
  def clear(): Unit = {
    count = 0
    counted = 0L
  }

  /** Starts a record with the current message. */
  def begin(message: MessageJoin): Unit = {
    count = 0
    counted = 0L
    cut = false
    at = message.offset
    streamOf = message.stream
    time = message.timeMicros
    append(message)
  }

  /** Adds the current message to the record. */
  def append(message: MessageJoin): Unit = {
    if (counted > 0) put(RecordBuffer.Newline, 0, 1)
    put(message.bytes, message.start, message.length)
    counted += message.length + 1
    cut ||= message.truncated
  }

  private def put(src: Array[Byte], srcStart: Int, n: Int): Unit = {
    if (count + n > array.length) {
      val grown = math.max(array.length.toLong * 2, count.toLong + n)
      array = java.util.Arrays.copyOf(array, math.min(grown, Int.MaxValue - 8L).toInt)
    }
    System.arraycopy(src, srcStart, array, count, n)
    count += n
  }
}

private object RecordBuffer {
  private val Newline = Array('\n'.toByte)
}
