package com.hx.spark.sql.connector.aof.files.lines

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** Searches eight bytes at a time, held to byte-by-byte ones. */
class ByteSearchSuite extends AnyFunSuite {
  private def naive(bytes: Array[Byte], from: Int, until: Int): Int = {
    var i = from
    while (i < until && bytes(i) != '\n') i += 1
    i
  }

  test("finds the first newline at every position of a word, and none past the end") {
    for (length <- 0 to 20; at <- 0 until length) {
      val bytes = Array.fill[Byte](length)('x')
      bytes(at) = '\n'
      assert(ByteSearch.find(bytes, 0, length, '\n') === at, s"length $length, newline at $at")
      assert(ByteSearch.find(bytes, 0, at, '\n') === at, "the end bounds the search")
    }
  }

  test("bytes next to 0x0a in value (0x0b, 0x09, 0x8a, 0xff) are not newlines") {
    val bytes = Array[Byte](
      0x0b,
      0x09,
      0x8a.toByte,
      0xff.toByte,
      0x00,
      0x7f,
      0x80.toByte,
      0x01,
      0x0b,
      0x0b,
      '\n')
    assert(ByteSearch.find(bytes, 0, bytes.length, '\n') === 10)
  }

  test("notes every byte other than ASCII it passed, and finds what find finds") {
    val random = new Random(11)
    for (_ <- 1 to 5000) {
      val bytes = Array.fill(random.nextInt(64)) {
        random.nextInt(30) match {
          case 0 => '\n'.toByte
          case 1 => (0x80 + random.nextInt(0x80)).toByte
          case _ => ('a' + random.nextInt(26)).toByte
        }
      }
      val from = if (bytes.isEmpty) 0 else random.nextInt(bytes.length + 1)
      val until = from + random.nextInt(bytes.length - from + 1)
      val found = ByteSearch.findNoting(bytes, from, until, '\n')
      val at = naive(bytes, from, until)
      assert(found.toInt === at)
      val passed = bytes.slice(from, math.min(at + 1, until))
      if (passed.exists(_ < 0)) assert((found & ByteSearch.NonAscii) != 0, bytes.toSeq)
    }
    val ascii = "abcdefghijklmnopqrstuvwxyz\n".getBytes("UTF-8")
    assert(ByteSearch.findNoting(ascii, 0, ascii.length, '\n') === 26L)
  }

  test("agrees with a byte-by-byte search on random bytes, newlines and bounds") {
    val random = new Random(7)
    for (_ <- 1 to 5000) {
      val bytes = Array.fill(random.nextInt(64)) {
        if (random.nextInt(20) == 0) '\n'.toByte else random.nextInt(256).toByte
      }
      val from = if (bytes.isEmpty) 0 else random.nextInt(bytes.length + 1)
      val until = from + random.nextInt(bytes.length - from + 1)
      assert(ByteSearch.find(bytes, from, until, '\n') === naive(bytes, from, until))
    }
  }

  test("finds a byte string where a byte-by-byte search does, high bytes and bounds too") {
    val random = new Random(11)
    def naiveIndexOf(bytes: Array[Byte], from: Int, until: Int, needle: Array[Byte]): Int =
      (from to until - needle.length)
        .find(i => needle.indices.forall(k => bytes(i + k) == needle(k)))
        .getOrElse(-1)
    val alphabet = Array[Byte]('a', 'b', 0xc3.toByte, 0xa9.toByte, 0x0a, 0xff.toByte)
    for (_ <- 1 to 20000) {
      val bytes = Array.fill(random.nextInt(40))(alphabet(random.nextInt(alphabet.length)))
      val needle = Array.fill(1 + random.nextInt(3))(alphabet(random.nextInt(alphabet.length)))
      val from = if (bytes.isEmpty) 0 else random.nextInt(bytes.length + 1)
      val until = from + random.nextInt(bytes.length - from + 1)
      assert(
        ByteSearch.indexOf(bytes, from, until, needle) === naiveIndexOf(bytes, from, until, needle))
    }
  }
}
