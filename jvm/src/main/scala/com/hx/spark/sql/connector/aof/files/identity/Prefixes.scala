package com.hx.spark.sql.connector.aof.files.identity

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.security.MessageDigest

import org.apache.commons.codec.binary.Hex

import com.hx.spark.sql.connector.aof.files.lines.LineEnding

/** Reads of a file's head and tail that the endpoint answers with. */
object Prefixes {
  private val Chunk = 64 * 1024

  /** MD5 of the first `length` bytes, or None when the file is shorter than that now. */
  def md5(channel: FileChannel, length: Long): Option[Fingerprint] = md5(channel, 0L, length)

  /** MD5 of the (at most `sampleLength`) bytes just before `end`, or None when past the end. */
  def tail(channel: FileChannel, end: Long, sampleLength: Long): Option[Fingerprint] = {
    val length = math.min(sampleLength, end)
    md5(channel, end - length, length)
  }

  private def md5(channel: FileChannel, from: Long, length: Long): Option[Fingerprint] = {
    val digest = MessageDigest.getInstance("MD5")
    val buffer = ByteBuffer.allocate(math.min(length, Chunk.toLong).toInt.max(1))
    var done = 0L
    var eof = false
    while (done < length && !eof) {
      buffer.clear()
      buffer.limit(math.min(buffer.capacity.toLong, length - done).toInt)
      val n = channel.read(buffer, from + done)
      if (n < 0) eof = true
      else {
        digest.update(buffer.array(), 0, n)
        done += n
      }
    }
    if (done < length) None
    else Some(Fingerprint(length, Hex.encodeHexString(digest.digest())))
  }

  /**
   * The end of the last complete line within `(from, size]`: the position just after its last
   * separator (which may start before `from`), or None when that span ends none. Scans
   * backwards, so a long line costs one pass.
   */
  def lastLineEnd(
      channel: FileChannel,
      from: Long,
      size: Long,
      ending: LineEnding = LineEnding.Default): Option[Long] = {
    val separator = ending.in(channel)
    val length = separator.length
    val start = math.max(0L, from - length + 1)
    // No more than the span: a look describes thousands of small files.
    val buffer = ByteBuffer.allocate(math.min(Chunk.toLong, math.max(0L, size - start)).toInt)
    var hi = size
    while (hi - start >= length) {
      val lo = math.max(start, hi - Chunk)
      buffer.clear()
      buffer.limit((hi - lo).toInt)
      var read = 0
      while (read < hi - lo) {
        val n = channel.read(buffer, lo + read)
        if (n < 0) return None // shrank while we looked: the next trigger sees the new size
        read += n
      }
      val last = read - length // the last index a separator can start at
      var i = last - Math.floorMod(lo + last, separator.unit.toLong).toInt
      while (i >= 0) {
        if (separator.matchesAt(buffer.array(), i)) return Some(lo + i + length)
        i -= separator.unit
      }
      if (lo == start) return None
      hi = lo + length - 1 // a separator across `lo` is found in the next chunk
    }
    None
  }
}
