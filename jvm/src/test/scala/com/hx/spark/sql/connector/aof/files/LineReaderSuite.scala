package com.hx.spark.sql.connector.aof.files

import java.io.RandomAccessFile
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class LineReaderSuite extends AnyFunSuite {

  private def withFile[T](content: Array[Byte])(body: Path => T): T = {
    val file = Files.createTempFile("lines-", ".log")
    try {
      Files.write(file, content)
      body(file)
    } finally Files.deleteIfExists(file)
  }

  /** (offset, line, truncated) for every line the reader gives for `[from, until)`. */
  private def read(
      file: Path,
      from: Long,
      until: Long,
      max: Int = 1 << 20,
      buffer: Int = 64): (Seq[(Long, String, Boolean)], Boolean) = {
    val channel = FileChannel.open(file, StandardOpenOption.READ)
    try {
      val reader = new LineReader(channel, from, until, max, buffer)
      val out = mutable.ArrayBuffer.empty[(Long, String, Boolean)]
      while (reader.next()) {
        out += ((
          reader.lineOffset,
          new String(reader.lineBytes, 0, reader.lineLength, UTF_8),
          reader.truncated))
      }
      (out.toList, reader.incomplete)
    } finally channel.close()
  }

  private def lines(
      text: String,
      from: Long = 0,
      until: Long = -1,
      max: Int = 1 << 20): Seq[(Long, String)] =
    withFile(text.getBytes(UTF_8)) { f =>
      read(f, from, if (until < 0) Files.size(f) else until, max)._1.map(l => (l._1, l._2))
    }

  test("an empty file and an empty range have no lines") {
    assert(lines("") === Nil)
    assert(lines("a\nb\n", 2, 2) === Nil)
  }

  test("lines with offsets; an empty line is a line") {
    assert(lines("ab\n\ncd\n") === Seq((0L, "ab"), (3L, ""), (4L, "cd")))
  }

  test("the partial last line is not emitted") {
    withFile("ab\ncd".getBytes(UTF_8)) { f =>
      val (out, incomplete) = read(f, 0, 3)
      assert(out.map(_._2) === Seq("ab"))
      assert(!incomplete)
    }
  }

  test("CRLF loses its \\r, a lone \\r inside a line stays") {
    assert(lines("a\r\nb\rc\n") === Seq((0L, "a"), (3L, "b\rc")))
  }

  test("invalid UTF-8 is kept byte for byte") {
    val bad = Array[Byte]('x', 0xff.toByte, 0xc3.toByte, 'y', '\n')
    withFile(bad) { f =>
      val channel = FileChannel.open(f)
      try {
        val reader = new LineReader(channel, 0, 5, 100)
        assert(reader.next())
        assert(reader.lineBytes.take(reader.lineLength).toSeq === bad.take(4).toSeq)
      } finally channel.close()
    }
  }

  test("a line starting before a range is the previous range's; the last one runs past until") {
    assert(lines("aaaa\nbbbb\ncccc\n", 2, 6) === Seq((5L, "bbbb")))
    assert(lines("aaaa\nbbbb\ncccc\n", 5, 6) === Seq((5L, "bbbb")))
    assert(lines("aaaa\nbbbb\ncccc\n", 6, 10) === Nil)
  }

  test("consecutive ranges cut anywhere, with tiny buffers, give every line exactly once") {
    val random = new Random(42)
    val text = (1 to 300).map(n => s"line-$n-" + "x" * random.nextInt(40)).mkString("", "\n", "\n")
    withFile(text.getBytes(UTF_8)) { f =>
      val size = Files.size(f)
      val expected = read(f, 0, size, buffer = 1 << 16)._1
      assert(expected.length === 300)
      for (buffer <- Seq(1, 2, 3, 7, 64); trial <- 1 to 20) {
        val cuts =
          (0L +: Seq.fill(trial)(random.nextInt(size.toInt).toLong) :+ size).distinct.sorted
        val union =
          cuts.sliding(2).flatMap { case Seq(a, b) => read(f, a, b, buffer = buffer)._1 }.toList
        assert(union === expected, s"buffer $buffer, cuts $cuts")
      }
    }
  }

  test("a line longer than the maximum is cut, flagged, and the next line is right") {
    withFile(("x" * 100 + "\nshort\n").getBytes(UTF_8)) { f =>
      val (out, _) = read(f, 0, Files.size(f), max = 10, buffer = 7)
      assert(out === Seq((0L, "x" * 10, true), (101L, "short", false)))
    }
  }

  test("a file that shrank after planning ends the range as incomplete, without a partial line") {
    withFile("aaaa\nbb".getBytes(UTF_8)) { f =>
      val (out, incomplete) = read(f, 0, 7)
      assert(out.map(_._2) === Seq("aaaa"))
      assert(incomplete)
    }
  }

  test("positions past 2 GiB and 3 GiB in a sparse file") {
    val file = Files.createTempFile("sparse-", ".log")
    try {
      val at2 = (2L << 30) + 5
      val at3 = (3L << 30) + 7
      val raf = new RandomAccessFile(file.toFile, "rw")
      try {
        raf.seek(at2 - 1); raf.write("\nbeyond two\n".getBytes(UTF_8))
        raf.seek(at3 - 1); raf.write("\nbeyond three\n".getBytes(UTF_8))
      } finally raf.close()
      // Each range starts inside the zero-filled line before it, which belongs to the previous one.
      assert(read(file, at2 - 3, at2 + 1)._1 === Seq((at2, "beyond two", false)))
      assert(read(file, at3 - 2, Files.size(file))._1 === Seq((at3, "beyond three", false)))
    } finally Files.deleteIfExists(file)
  }

  test("a 100 MB line-free blob is read in constant memory (child JVM with a 32 MB heap)") {
    val blob = Files.createTempFile("blob-", ".bin")
    try {
      val out = Files.newOutputStream(blob)
      try {
        val chunk = Array.fill[Byte](1 << 20)('z')
        (1 to 100).foreach(_ => out.write(chunk))
        out.write('\n')
      } finally out.close()
      val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
      val process = new ProcessBuilder(
        java,
        "-Xmx32m",
        "-cp",
        System.getProperty("java.class.path"),
        BlobReaderMain.getClass.getName.stripSuffix("$"),
        blob.toString)
        .redirectErrorStream(true)
        .start()
      val output = new String(process.getInputStream.readAllBytes(), UTF_8).trim
      assert(process.waitFor() === 0, output)
      assert(output === "lines=1 truncated=true length=1048576")
    } finally Files.deleteIfExists(blob)
  }
}

/** Reads a whole file with the default buffer and a 1 MiB line limit, in a small heap. */
object BlobReaderMain {
  def main(args: Array[String]): Unit = {
    val channel = FileChannel.open(Path.of(args(0)))
    try {
      val reader = new LineReader(channel, 0, channel.size(), 1 << 20)
      var lines = 0
      var truncated = false
      var length = 0
      while (reader.next()) {
        lines += 1
        truncated = reader.truncated
        length = reader.lineLength
      }
      println(s"lines=$lines truncated=$truncated length=$length")
    } finally channel.close()
  }
}
