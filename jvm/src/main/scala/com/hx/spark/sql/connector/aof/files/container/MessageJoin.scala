package com.hx.spark.sql.connector.aof.files.container

import com.hx.spark.sql.connector.aof.files.lines.LineReader

/**
 * The messages of a range of lines read from a clean position: a line is one message, except
 * where a container runtime split a long one into chunks ([[LineFormat]]); those are joined, each
 * stream on its own, since stdout and stderr interleave in one file. A message is as long as
 * `line.length.max` allows; the rest of it is skipped and the message counted as truncated.
 *
 * A message carries the offset of its first chunk, and completes at its last, so messages of
 * two streams may complete out of their offsets' order. A position is clean when no message is
 * open across it: there the lines before and after it hold whole messages, and only there may a
 * range end (the planner's cut; [[RecordEnds]] reports them).
 *
 * One is made for each range, at whose start nothing is open.
 *
 * Fed the reader's lines one at a time ([[take]]), it does no I/O: the reader may move to a
 * copy of the file between two lines. At the range's end, [[drain]] completes what is still
 * open: the planner ends a range there only once the file went quiet (the flush timeout).
 */
final class MessageJoin(format: LineFormat, lineLengthMax: Int) extends Message {
  private val chunks = format.parser()
  private val open = new Array[MessageJoin.Open](format.streamIds.size)
  private var openCount = 0
  private var malformedLines = 0L

  /** Lines not of the format, passed on as text. */
  def malformed: Long = malformedLines

  /** Whether no message is open: the position after the last line taken is clean. */
  def isClean: Boolean = openCount == 0

  /**
   * Takes the reader's current line: true when it completes a message. Its offset is moved by
   * `shift`: the lines of a file that another continues ([[RuntimeReopens]]) are taken at
   * negative offsets, before the continuing file's.
   */
  def take(lines: LineReader, shift: Long = 0L): Boolean = {
    if (!chunks.parse(lines.lineBytes, lines.lineStart, lines.lineLength)) malformedLines += 1
    val s = chunks.stream
    val pending = open(s)
    val completed =
      if (chunks.partial) {
        if (pending == null) {
          open(s) = new MessageJoin.Open(lines.lineOffset + shift, chunks.timeMicros, lineLengthMax)
          openCount += 1
        }
        open(s).append(chunks.bytes, chunks.start, chunks.length, lines.truncated)
        false
      } else if (pending == null) {
        val limited = math.min(chunks.length, lineLengthMax)
        current(chunks.bytes, chunks.start, limited, lines.lineOffset + shift, s, chunks.timeMicros)
        cut = lines.truncated || limited < chunks.length
        true
      } else {
        pending.append(chunks.bytes, chunks.start, chunks.length, lines.truncated)
        open(s) = null
        openCount -= 1
        completeOpen(pending, s)
        true
      }
    completed
  }

  /** After the range's last line: completes the open message with the first offset, if any. */
  def drain(): Boolean = {
    val s = format.streamIds.filter(open(_) != null).sortBy(open(_).offset).headOption
    s.foreach { stream =>
      val pending = open(stream)
      open(stream) = null
      openCount -= 1
      completeOpen(pending, stream)
    }
    s.isDefined
  }

  private def completeOpen(pending: MessageJoin.Open, s: Int): Unit = {
    current(pending.array, 0, pending.used, pending.offset, s, pending.timeMicros)
    cut = pending.cut
  }

  private def current(b: Array[Byte], start: Int, n: Int, offset: Long, s: Int, t: Long): Unit = {
    array = b
    from = start
    count = n
    at = offset
    streamOf = s
    time = t
  }
}

private object MessageJoin {

  /** A message whose last chunk has not come yet: in an array of its own, handed on whole. */
  final class Open(val offset: Long, val timeMicros: Long, limit: Int) {
    var array = new Array[Byte](1024)
    var used = 0
    var cut = false

    def append(bytes: Array[Byte], start: Int, length: Int, lineCut: Boolean): Unit = {
      val take = math.min(length, limit - used)
      if (take > 0) {
        if (used + take > array.length) {
          val grown = math.max(array.length.toLong * 2, used.toLong + take)
          array = java.util.Arrays.copyOf(array, math.min(grown, limit.toLong).toInt)
        }
        System.arraycopy(bytes, start, array, used, take)
        used += take
      }
      cut ||= lineCut || take < length
    }
  }
}
