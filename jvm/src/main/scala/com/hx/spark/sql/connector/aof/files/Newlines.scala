package com.hx.spark.sql.connector.aof.files

import java.nio.ByteOrder

import org.apache.spark.unsafe.Platform

/**
 * Finds `\n` eight bytes at a time: the scan is the reader's inner loop, and the JIT does not
 * vectorise a byte-by-byte search that stops early. The word test is the well-known "has a zero
 * byte" bit trick applied to `word ^ 0x0a0a...`; its false positives lie only above a true zero
 * byte, so the lowest flagged byte is exact.
 */
object Newlines {
  private val Ones = 0x0101010101010101L
  private val Highs = 0x8080808080808080L
  private val Pattern = 0x0a0a0a0a0a0a0a0aL
  private val LittleEndian = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN

  /** Index of the first `\n` in `bytes[from, until)`, or `until` when there is none. */
  def find(bytes: Array[Byte], from: Int, until: Int): Int = {
    var i = from
    while (i + 8 <= until) {
      val x = Platform.getLong(bytes, Platform.BYTE_ARRAY_OFFSET + i) ^ Pattern
      val found = (x - Ones) & ~x & Highs
      if (found != 0) {
        val skip =
          if (LittleEndian) java.lang.Long.numberOfTrailingZeros(found)
          else java.lang.Long.numberOfLeadingZeros(found)
        return i + skip / 8
      }
      i += 8
    }
    while (i < until && bytes(i) != '\n') i += 1
    i
  }
}
