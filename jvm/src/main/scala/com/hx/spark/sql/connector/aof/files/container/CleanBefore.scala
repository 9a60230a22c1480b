package com.hx.spark.sql.connector.aof.files.container

import java.nio.channels.FileChannel

import com.hx.spark.sql.connector.aof.files.lines.LineReader

/**
 * The last clean position ([[MessageJoin]]) at or before a given one, found by reading back from
 * it: what a node reports for a container runtime's messages without a multi-line pattern. A
 * position is clean when each stream's last line before it ends a message. Reading back, the
 * first line seen of a stream is that line: once every stream has shown one, the answer is known,
 * a few lines back in most files. Reading forward from the driver's position would read all the
 * driver has not read yet: the whole file when a query starts on an existing log.
 *
 * A stream with no line back to `lower` costs what reading forward costs: `lower` is clean, so
 * that stream is closed everywhere after it, but only reaching it shows that.
 *
 * Lines are read forward in blocks that grow backwards from the position, and parsed as a reader
 * parses them (the same line limit), so a line is of a stream here exactly when it is there.
 */
private[files] final class CleanBefore(channel: FileChannel, format: LineFormat, lineLimit: Int) {
  private val chunks = format.parser()
  // A bit for each stream of the format: all set once every stream's last message ended.
  private val every = format.streamIds.filter(_ != LineChunks.NoStream).map(1 << _).sum
  private val lines = new CleanBefore.Lines

  /** The last clean position in `[lower, upper]`, where `lower` is clean. */
  def apply(lower: Long, upper: Long): Long = {
    var hi = upper
    var block = CleanBefore.FirstBlock
    var candidate = -1L
    var decided = 0 // a bit per stream whose last line before `candidate` ends a message
    while (hi > lower) {
      val lo = math.max(lower, hi - block)
      read(lo, hi, upper)
      var i = lines.count - 1
      while (i >= 0) {
        if (candidate < 0) candidate = lines.ends(i)
        val stream = lines.streams(i)
        if (stream != LineChunks.NoStream && (decided & (1 << stream)) == 0) {
          if (lines.partial(i)) {
            // This stream is open from here to the candidate: the answer is before this line.
            candidate = lines.offsets(i)
            decided = 0
          } else {
            decided |= 1 << stream
            if (decided == every) return candidate
          }
        }
        i -= 1
      }
      hi = lo
      block = math.min(block * 2, CleanBefore.LastBlock)
    }
    if (candidate < 0) lower else candidate
  }

  /** The lines starting in `[lo, hi)` and ending at or before `upper`, with their streams. */
  private def read(lo: Long, hi: Long, upper: Long): Unit = {
    lines.count = 0
    val reader = new LineReader(channel, lo, hi, lineLimit, (hi - lo).toInt + 4096)
    while (reader.next() && reader.lineEnd <= upper) {
      chunks.parse(reader.lineBytes, reader.lineStart, reader.lineLength)
      lines.add(reader.lineOffset, reader.lineEnd, chunks.stream, chunks.partial)
    }
  }
}

private object CleanBefore {
  private val FirstBlock = 16L * 1024
  private val LastBlock = 1024L * 1024

  /** The lines of one block, in arrays reused from block to block. */
  final class Lines {
    var count = 0
    var offsets = new Array[Long](256)
    var ends = new Array[Long](256)
    var streams = new Array[Int](256)
    var partial = new Array[Boolean](256)

    def add(offset: Long, end: Long, stream: Int, isPartial: Boolean): Unit = {
      if (count == offsets.length) {
        offsets = java.util.Arrays.copyOf(offsets, count * 2)
        ends = java.util.Arrays.copyOf(ends, count * 2)
        streams = java.util.Arrays.copyOf(streams, count * 2)
        partial = java.util.Arrays.copyOf(partial, count * 2)
      }
      offsets(count) = offset
      ends(count) = end
      streams(count) = stream
      partial(count) = isPartial
      count += 1
    }
  }
}
