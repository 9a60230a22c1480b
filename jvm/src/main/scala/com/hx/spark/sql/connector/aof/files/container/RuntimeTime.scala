package com.hx.spark.sql.connector.aof.files.container

import java.time.{DateTimeException, LocalDateTime, ZoneOffset}

import com.hx.spark.sql.connector.aof.files.lines.ByteSearch

/**
 * The times container runtimes write, RFC 3339 with up to nine digits of fraction:
 * `2026-11-28T10:00:00.123456789Z` (containerd, Docker) or `...+03:00` (CRI-O writes the node's
 * offset). Parsed from bytes by hand: it is on every line, and `java.time`'s parser would cost
 * more than the rest of the line. The seconds are worked out once per second of log. Most lines
 * (containerd's: the second before, nine digits, UTC) are read eight bytes at a time: the second
 * compared as three words, the digits read as simdjson reads numbers.
 */
final class RuntimeTime {
  // The last second's first 19 bytes, as the words at 0, 8 and 11.
  private var last0, last8, last11 = 0L
  private var lastSeconds = Long.MinValue

  /** Where the time [[prefix]] parsed last ends. */
  var end: Int = 0

  /** Microseconds since the epoch of `bytes[from, until)`; [[RuntimeTime.Invalid]] if not one. */
  def micros(bytes: Array[Byte], from: Int, until: Int): Long = {
    val t = prefix(bytes, from, until)
    if (end == until) t else RuntimeTime.Invalid
  }

  /**
   * The time at the head of `bytes[from, until)`, which may go on after it: its microseconds
   * since the epoch, and its [[end]]; [[RuntimeTime.Invalid]] if it does not start with one. A
   * line's prefix is parsed in one pass, without looking for where its first field ends first.
   */
  def prefix(bytes: Array[Byte], from: Int, until: Int): Long = {
    // Most lines: the second of the line before, nine digits of fraction, UTC. Kept small, so
    // that it is compiled into the caller.
    if (until - from >= 30 && lastSeconds != Long.MinValue && bytes(from + 19) == '.' &&
      bytes(from + 29) == 'Z' && isDigit(bytes(from + 28)) && sameSecond(bytes, from)) {
      val digits = word(bytes, from + 20)
      if (RuntimeTime.eightDigits(digits)) {
        end = from + 30
        return lastSeconds * 1000000L + RuntimeTime.valueOfEight(digits) / 100
      }
    }
    anyPrefix(bytes, from, until)
  }

  private def anyPrefix(bytes: Array[Byte], from: Int, until: Int): Long = {
    val n = RuntimeTime.SecondsLength
    if (until - from < n + 1 || bytes(from + 10) != 'T') return RuntimeTime.Invalid
    val seconds =
      if (lastSeconds != Long.MinValue && sameSecond(bytes, from)) lastSeconds
      else {
        val s = localSeconds(bytes, from)
        if (s == Long.MinValue) return RuntimeTime.Invalid
        last0 = word(bytes, from)
        last8 = word(bytes, from + 8)
        last11 = word(bytes, from + 11)
        lastSeconds = s
        s
      }
    var i = from + n
    var fraction = 0L
    if (bytes(i) == '.') {
      i += 1
      var digits = 0
      while (i < until && isDigit(bytes(i))) {
        if (digits < 6) fraction = fraction * 10 + (bytes(i) - '0')
        digits += 1
        i += 1
      }
      if (digits == 0 || digits > 9) return RuntimeTime.Invalid
      while (digits < 6) { fraction *= 10; digits += 1 }
    }
    val offset = offsetSeconds(bytes, i, until)
    if (offset == Int.MinValue) RuntimeTime.Invalid else (seconds - offset) * 1000000L + fraction
  }

  private def sameSecond(bytes: Array[Byte], from: Int): Boolean =
    word(bytes, from) == last0 && word(bytes, from + 8) == last8 &&
      word(bytes, from + 11) == last11

  private def word(bytes: Array[Byte], i: Int): Long = ByteSearch.word(bytes, i)

  /** `yyyy-MM-ddTHH:mm:ss` as seconds since the epoch, taken as UTC; MinValue when not one. */
  private def localSeconds(b: Array[Byte], f: Int): Long = {
    val separators = Seq(4 -> '-', 7 -> '-', 13 -> ':', 16 -> ':')
    if (separators.exists { case (i, c) => b(f + i) != c }) return Long.MinValue
    val fields = Seq(f -> 4, f + 5 -> 2, f + 8 -> 2, f + 11 -> 2, f + 14 -> 2, f + 17 -> 2)
    val values = fields.map { case (at, n) => number(b, at, n) }
    if (values.contains(-1)) return Long.MinValue
    try {
      LocalDateTime
        .of(values(0), values(1), values(2), values(3), values(4), values(5))
        .toEpochSecond(ZoneOffset.UTC)
    } catch { case _: DateTimeException => Long.MinValue }
  }

  /** `Z` or `±HH:MM` at `i`: its seconds east of UTC, and its [[end]]; Int.MinValue if not. */
  private def offsetSeconds(b: Array[Byte], i: Int, until: Int): Int =
    if (i < until && (b(i) == 'Z' || b(i) == 'z')) {
      end = i + 1
      0
    } else if (until - i >= 6 && (b(i) == '+' || b(i) == '-') && b(i + 3) == ':') {
      val hours = number(b, i + 1, 2)
      val minutes = number(b, i + 4, 2)
      end = i + 6
      if (hours < 0 || minutes < 0) Int.MinValue
      else (if (b(i) == '-') -1 else 1) * (hours * 3600 + minutes * 60)
    } else Int.MinValue

  private def number(b: Array[Byte], from: Int, count: Int): Int = {
    var value = 0
    var i = from
    while (i < from + count) {
      if (!isDigit(b(i))) return -1
      value = value * 10 + (b(i) - '0')
      i += 1
    }
    value
  }

  private def isDigit(b: Byte): Boolean = b >= '0' && b <= '9'
}

object RuntimeTime {

  /** What [[RuntimeTime.micros]] returns for bytes that are not a time. */
  val Invalid: Long = Long.MinValue

  private val SecondsLength = "2026-11-28T10:00:00".length

  /** Whether each of the word's eight bytes is an ASCII digit. */
  private def eightDigits(w: Long): Boolean =
    ((w & 0xf0f0f0f0f0f0f0f0L) |
      (((w + 0x0606060606060606L) & 0xf0f0f0f0f0f0f0f0L) >>> 4)) == 0x3333333333333333L

  /** The number the eight digits of the word write, the first the most significant. */
  private def valueOfEight(w: Long): Long = {
    val pairs = ((w & 0x0f0f0f0f0f0f0f0fL) * 2561) >>> 8
    val fours = ((pairs & 0x00ff00ff00ff00ffL) * 6553601) >>> 16
    (((fours & 0x0000ffff0000ffffL) * 42949672960001L) >>> 32) & 0xffffffffL
  }
}
