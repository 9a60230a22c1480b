package com.hx.spark.sql.connector.aof.files.lines

import java.nio.{ByteBuffer, CharBuffer}
import java.nio.charset.{Charset, CodingErrorAction}
import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.unsafe.Platform

/**
 * A line's value as UTF-8, which is what Spark's strings hold. A UTF-8 line that is valid is its
 * own value, read in place; any other is decoded from its charset and written out as UTF-8. Bytes
 * that are not of the charset become U+FFFD, never a failure, and the lines that held any are
 * counted, so a file read in the wrong `encoding` shows. UTF-16 without surrogates (nearly every
 * log line) is rewritten in one loop: the JDK's decoder and encoder in turn cost four times it.
 *
 * The decoded lines are kept in an array of their own until [[reset]]: the lines a reader gave
 * since its last read stay valid, as the lines it gives in its buffer do.
 */
final class LineDecoder(charset: Charset) {
  private val utf8 = charset == UTF_8
  // 1 for UTF-16LE, 0 for UTF-16BE: where a unit's high byte is; -1 for any other charset.
  private val high = charset.name match {
    case "UTF-16LE" => 1
    case "UTF-16BE" => 0
    case _ => -1
  }
  private val decoder = charset
    .newDecoder()
    .onMalformedInput(CodingErrorAction.REPORT)
    .onUnmappableCharacter(CodingErrorAction.REPORT)
  private val encoder = UTF_8
    .newEncoder()
    .onMalformedInput(CodingErrorAction.REPLACE)
    .onUnmappableCharacter(CodingErrorAction.REPLACE)
  // Made when first needed: a valid UTF-8 line needs neither.
  private var chars = CharBuffer.allocate(0)
  private var out = Array.emptyByteArray
  private var used = 0

  /** Lines that held bytes not of the charset. */
  var invalid: Long = 0L

  /** The last line decoded: `bytes[start, start + length)`. */
  var bytes: Array[Byte] = Array.emptyByteArray
  var start: Int = 0
  var length: Int = 0

  /** The lines decoded so far are no longer read: their space is used again. */
  def reset(): Unit = used = 0

  /**
   * Decodes the line `in[from, from + count)`. A line `cut` to `line.length.max` may end inside a
   * character: that part of one is left out, not taken for invalid bytes.
   */
  def decode(in: Array[Byte], from: Int, count: Int, cut: Boolean = false): Unit = {
    if (utf8 && LineDecoder.validUtf8(in, from, count)) {
      bytes = in
      start = from
      length = count
    } else if (high < 0 || !fromUtf16(in, from, count)) transcode(in, from, count, !cut)
  }

  /** UTF-16 without surrogates, written as UTF-8; false (nothing written) for any other. */
  private def fromUtf16(in: Array[Byte], from: Int, count: Int): Boolean = {
    if ((count & 1) != 0) return false
    room(count / 2 * 3)
    var o = used
    var i = from
    val end = from + count
    while (i < end) {
      val c = ((in(i + high) & 0xff) << 8) | (in(i + 1 - high) & 0xff)
      if (c < 0x80) {
        out(o) = c.toByte
        o += 1
      } else if (c < 0x800) {
        out(o) = (0xc0 | (c >> 6)).toByte
        out(o + 1) = (0x80 | (c & 0x3f)).toByte
        o += 2
      } else if (c >= 0xd800 && c <= 0xdfff) {
        return false
      } else {
        out(o) = (0xe0 | (c >> 12)).toByte
        out(o + 1) = (0x80 | ((c >> 6) & 0x3f)).toByte
        out(o + 2) = (0x80 | (c & 0x3f)).toByte
        o += 3
      }
      i += 2
    }
    bytes = out
    start = used
    length = o - used
    used = o
    true
  }

  /** At least `most` bytes free in `out`: the lines given before keep the array they are in. */
  private def room(most: Int): Unit =
    if (out.length - used < most) {
      out = new Array[Byte](math.max(64 * 1024, most))
      used = 0
    }

  private def transcode(in: Array[Byte], from: Int, count: Int, whole: Boolean): Unit = {
    val source = ByteBuffer.wrap(in, from, count)
    val needed = (count * decoder.maxCharsPerByte().toDouble).ceil.toInt + 2
    if (chars.capacity < needed) chars = CharBuffer.allocate(needed)
    chars.clear()
    decoder.reset()
    var bad = false
    var done = false
    while (!done) {
      // Not whole: bytes of a character cut short are left in `source`, not reported.
      val result = decoder.decode(source, chars, whole)
      if (result.isError) {
        bad = true
        chars.put('\uFFFD')
        source.position(source.position() + result.length())
      } else if (result.isOverflow) {
        chars = grown(chars)
      } else done = true
    }
    if (whole) while (decoder.flush(chars).isOverflow) chars = grown(chars)
    chars.flip()
    // A char is at most three bytes of UTF-8 (a pair of surrogates, four for two).
    room(chars.remaining() * 3)
    val target = ByteBuffer.wrap(out, used, out.length - used)
    encoder.reset()
    encoder.encode(chars, target, true)
    encoder.flush(target)
    bytes = out
    start = used
    length = target.position() - used
    used = target.position()
    if (bad) invalid += 1
  }

  private def grown(buffer: CharBuffer): CharBuffer = {
    val larger = CharBuffer.allocate(buffer.capacity * 2)
    buffer.flip()
    larger.put(buffer)
    larger
  }
}

object LineDecoder {
  private val Highs = 0x8080808080808080L

  /**
   * Whether `in[from, from + count)` is well-formed UTF-8 (RFC 3629: no overlong forms, no
   * surrogates, nothing past U+10FFFF). ASCII is passed eight bytes at a time.
   */
  def validUtf8(in: Array[Byte], from: Int, count: Int): Boolean = {
    val end = from + count
    var i = from
    while (i < end) {
      while (i + 8 <= end && (Platform.getLong(in, Platform.BYTE_ARRAY_OFFSET + i) & Highs) == 0) {
        i += 8
      }
      if (i < end) {
        val c = in(i) & 0xff
        if (c < 0x80) i += 1
        else {
          val more =
            if (c >= 0xc2 && c <= 0xdf) 1
            else if (c >= 0xe0 && c <= 0xef) 2
            else if (c >= 0xf0 && c <= 0xf4) 3
            else return false
          if (i + more >= end) return false
          // The second byte's range rules out overlong forms, surrogates and too high a code.
          val second = in(i + 1) & 0xff
          val low = if (c == 0xe0) 0xa0 else if (c == 0xf0) 0x90 else 0x80
          val high = if (c == 0xed) 0x9f else if (c == 0xf4) 0x8f else 0xbf
          if (second < low || second > high) return false
          var k = 2
          while (k <= more) {
            if ((in(i + k) & 0xc0) != 0x80) return false
            k += 1
          }
          i += more + 1
        }
      }
    }
    true
  }
}
