package com.hx.spark.sql.connector.aof.files.lines

import java.nio.charset.{Charset, StandardCharsets}

/**
 * What ends a line in one file, as bytes: `\n` in the file's charset (or `line.separator`), found
 * only at offsets that are a multiple of the charset's code unit. UTF-16's `\n` is `0A 00`, and
 * `0A 00` at an odd offset is the halves of two characters. Positions stay bytes throughout.
 *
 * A separator never overlaps itself ([[LineEnding]] refuses one that could), so where a search
 * starts cannot change which separators it finds: a range cut anywhere sees the lines every
 * other range sees.
 *
 * @param bytes          the separator
 * @param unit           the code unit: every line starts at a multiple of it
 * @param carriageReturn a `\r` before `\n` is not part of the line (default separator only)
 * @param byteOrderMark  skipped at the file's head: not part of the first line
 * @param charset        what the lines are written in
 */
final class Separator(
    val bytes: Array[Byte],
    val unit: Int,
    val carriageReturn: Array[Byte],
    val byteOrderMark: Array[Byte],
    val charset: Charset) {
  require(bytes.nonEmpty && bytes.length % unit == 0)

  val length: Int = bytes.length
  private val single = length == 1
  private val first = bytes(0)

  /** Whether lines are UTF-8 already: then a line's bytes are its value, unless invalid. */
  val utf8: Boolean = charset == StandardCharsets.UTF_8

  /**
   * Index of the first separator wholly in `bytes[from, until)` that starts a whole number of
   * units after `from`, or `until` when there is none. `from` must be at a unit's start.
   */
  def find(in: Array[Byte], from: Int, until: Int): Int = {
    if (single) return ByteSearch.find(in, from, until, first)
    val last = until - length
    var i = from
    while (i <= last) {
      i = ByteSearch.find(in, i, last + 1, first)
      if (i > last) return until
      if ((i - from) % unit == 0 && matchesAt(in, i)) return i
      i += 1
    }
    until
  }

  /**
   * Where a search that found nothing in `[from, until)` goes on: the first unit start at which a
   * separator could still end past `until`. `from` and `until - from` count from a unit's start.
   */
  def resumeAt(from: Int, until: Int): Int =
    if (single) until else math.max(from.toLong, alignUp(from, until - length + 1L)).toInt

  /** The first position at or after `p` that is a whole number of units after `base`. */
  def alignUp(base: Long, p: Long): Long = {
    val r = Math.floorMod(p - base, unit.toLong)
    if (r == 0) p else p + unit - r
  }

  /**
   * [[find]] with [[ByteSearch.NonAscii]] set in the result when a byte looked at may be other
   * than ASCII (always, for a separator of several bytes); the index is the low 32 bits.
   */
  def findNoting(in: Array[Byte], from: Int, until: Int): Long =
    if (single) ByteSearch.findNoting(in, from, until, first)
    else find(in, from, until) | ByteSearch.NonAscii

  /** Whether the separator is at `in[at, at + length)`. */
  def matchesAt(in: Array[Byte], at: Int): Boolean = {
    var k = 0
    while (k < length && in(at + k) == bytes(k)) k += 1
    k == length
  }

  /** Whether `in[from, from + count)` ends with `suffix`. */
  def endsWith(in: Array[Byte], from: Int, count: Int, suffix: Array[Byte]): Boolean =
    suffix.nonEmpty && count >= suffix.length && {
      var k = 0
      val at = from + count - suffix.length
      while (k < suffix.length && in(at + k) == suffix(k)) k += 1
      k == suffix.length
    }
}
