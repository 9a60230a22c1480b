package com.hx.spark.sql.connector.aof.files

import java.time.{DateTimeException, LocalDateTime, ZoneOffset}

/**
 * The times container runtimes write, RFC 3339 with up to nine digits of fraction:
 * `2026-11-28T10:00:00.123456789Z` (containerd, Docker) or `...+03:00` (CRI-O writes the node's
 * offset). Parsed from bytes by hand: it is on every line, and `java.time`'s parser would cost
 * more than the rest of the line. The seconds are worked out once per second of log.
 */
final class RuntimeTime {
  private val last = new Array[Byte](RuntimeTime.SecondsLength)
  private var lastSeconds = Long.MinValue

  /** Microseconds since the epoch of `bytes[from, until)`; [[RuntimeTime.Invalid]] if not one. */
  def micros(bytes: Array[Byte], from: Int, until: Int): Long = {
    val n = RuntimeTime.SecondsLength
    if (until - from < n + 1 || bytes(from + 10) != 'T') return RuntimeTime.Invalid
    val seconds =
      if (lastSeconds != Long.MinValue && sameSecond(bytes, from)) lastSeconds
      else {
        val s = localSeconds(bytes, from)
        if (s == Long.MinValue) return RuntimeTime.Invalid
        System.arraycopy(bytes, from, last, 0, n)
        lastSeconds = s
        s
      }
    var i = from + n
    var fraction = 0L
    var digits = 0
    if (bytes(i) == '.') {
      i += 1
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

  private def sameSecond(bytes: Array[Byte], from: Int): Boolean = {
    var i = 0
    while (i < RuntimeTime.SecondsLength && bytes(from + i) == last(i)) i += 1
    i == RuntimeTime.SecondsLength
  }

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

  /** `Z` or `±HH:MM`, to the end: its seconds east of UTC; Int.MinValue when not one. */
  private def offsetSeconds(b: Array[Byte], i: Int, until: Int): Int =
    if (until - i == 1 && (b(i) == 'Z' || b(i) == 'z')) 0
    else if (until - i == 6 && (b(i) == '+' || b(i) == '-') && b(i + 3) == ':') {
      val hours = number(b, i + 1, 2)
      val minutes = number(b, i + 4, 2)
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
}
