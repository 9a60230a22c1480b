package com.hx.spark.sql.connector.aof.files.lines

import java.nio.ByteOrder

import org.apache.spark.unsafe.Platform

/**
 * Finds a byte, or a byte string by its first byte, eight bytes at a time: the reader's search
 * for `\n` and a selective line filter's for its literal spend most of their time here. The JIT
 * does not vectorise a byte-by-byte search that stops early. The word test is the well-known "has
 * a zero byte" bit trick applied to `word ^ bbbb...`; its false positives lie only above a true
 * zero byte, so the lowest flagged byte is exact.
 */
object ByteSearch {
  private val Ones = 0x0101010101010101L
  private val Highs = 0x8080808080808080L
  private val LittleEndian = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN

  /** Index of the first `needle` in `bytes[from, until)`, or -1 when there is none. */
  def indexOf(bytes: Array[Byte], from: Int, until: Int, needle: Array[Byte]): Int = {
    if (needle.isEmpty) return from
    val last = until - needle.length // the last index a match can start at
    var i = from
    while (i <= last) {
      val at = find(bytes, i, last + 1, needle(0))
      if (at > last) return -1
      if (matchesAt(bytes, at, needle)) return at
      i = at + 1
    }
    -1
  }

  /** Index of the first `b` in `bytes[from, until)`, or `until` when there is none. */
  def find(bytes: Array[Byte], from: Int, until: Int, b: Byte): Int = {
    val pattern = (b & 0xffL) * Ones
    var i = from
    while (i + 8 <= until) {
      val x = Platform.getLong(bytes, Platform.BYTE_ARRAY_OFFSET + i) ^ pattern
      val found = (x - Ones) & ~x & Highs
      if (found != 0) {
        val skip =
          if (LittleEndian) java.lang.Long.numberOfTrailingZeros(found)
          else java.lang.Long.numberOfLeadingZeros(found)
        return i + skip / 8
      }
      i += 8
    }
    while (i < until && bytes(i) != b) i += 1
    i
  }

  /**
   * [[find]], noting whether a byte it looked at has its high bit set: [[NonAscii]] is set in
   * the result then, and the index is its low 32 bits. A line of ASCII alone is valid UTF-8
   * without another look. The last word looked at may hold bytes past the one found: those are
   * noted too, so a note may be a false alarm, never a miss.
   */
  def findNoting(bytes: Array[Byte], from: Int, until: Int, b: Byte): Long = {
    val pattern = (b & 0xffL) * Ones
    var seen = 0L
    var i = from
    while (i + 8 <= until) {
      val w = Platform.getLong(bytes, Platform.BYTE_ARRAY_OFFSET + i)
      val x = w ^ pattern
      val found = (x - Ones) & ~x & Highs
      seen |= w
      if (found != 0) {
        val skip =
          if (LittleEndian) java.lang.Long.numberOfTrailingZeros(found)
          else java.lang.Long.numberOfLeadingZeros(found)
        return noted(i + skip / 8, seen)
      }
      i += 8
    }
    while (i < until && bytes(i) != b) {
      seen |= bytes(i) & 0x80L
      i += 1
    }
    noted(i, seen)
  }

  /** The flag of [[findNoting]]'s result: a byte with its high bit set was looked at. */
  val NonAscii: Long = 1L << 32

  private def noted(index: Int, seen: Long): Long =
    if ((seen & Highs) != 0) index | NonAscii else index.toLong

  /** The eight bytes at `bytes[i, i + 8)` as one word, the first in the lowest bits. */
  def word(bytes: Array[Byte], i: Int): Long = {
    require(i >= 0 && i + 8 <= bytes.length)
    val w = Platform.getLong(bytes, Platform.BYTE_ARRAY_OFFSET + i)
    if (LittleEndian) w else java.lang.Long.reverseBytes(w)
  }

  /** `text`'s first eight bytes as a [[word]]. */
  def word(text: String): Long = word(text.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0)

  private def matchesAt(bytes: Array[Byte], at: Int, needle: Array[Byte]): Boolean = {
    var k = 1
    while (k < needle.length && bytes(at + k) == needle(k)) k += 1
    k == needle.length
  }
}
