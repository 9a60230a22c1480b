package com.hx.spark.sql.connector.aof.files.compression

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Files, Path, StandardOpenOption}

import org.apache.commons.codec.digest.DigestUtils.md5Hex
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.Fingerprint
import com.hx.spark.sql.connector.aof.files.lines.CountingChannel

/**
 * Each compressor a rotation may use, run for real on a log, and text that only looks alike; each
 * one's file read as the log it holds, whole, cut short, or made of two streams.
 */
class CompressionSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val dir = Files.createTempDirectory("compressed-")
  private val log = dir.resolve("app.log")
  Files.write(log, ("a line of text\n" * 200).getBytes(UTF_8))

  override protected def afterAll(): Unit = {
    Files.delete(log)
    Files.delete(dir)
  }

  private def compressed(format: String, out: Path): Path = {
    // -c: to stdout, which the system writes straight to `out`; the log stays.
    val compressor = new ProcessBuilder(format, "-c", "-q", log.toString)
      .redirectOutput(out.toFile)
      .start()
    assert(compressor.waitFor() === 0)
    out
  }

  private def decompressed(path: Path, format: String): Array[Byte] = {
    val file = FileChannel.open(path, StandardOpenOption.READ)
    val lines =
      try Decompressed.open(file, format)
      finally file.close()
    try {
      val bytes = ByteBuffer.allocate(lines.size().toInt)
      while (bytes.hasRemaining && lines.read(bytes, bytes.position().toLong) > 0) ()
      bytes.array()
    } finally lines.close()
  }

  Seq("gzip", "bzip2", "xz", "zstd", "lz4").foreach { format =>
    test(s"$format's output is told by its first bytes") {
      val out = compressed(format, dir.resolve(s"app.log.$format"))
      assert(Compression.of(out) === Some(format))
      Files.delete(out)
    }
  }

  Seq("gzip", "bzip2", "xz", "zstd", "lz4").foreach { format =>
    test(s"a $format file reads as the log; cut short, as a prefix of it; two streams, as both") {
      val text = Files.readAllBytes(log)
      val out = compressed(format, dir.resolve(s"app.log.$format"))
      try {
        assert(decompressed(out, format).toSeq === text.toSeq)
        val file = FileChannel.open(out, StandardOpenOption.READ)
        try {
          val head = Some(Fingerprint(1024, md5Hex(text.take(1024))))
          assert(Decompressed.headMd5(file, format, 1024) === head)
          assert(Decompressed.headMd5(file, format, text.length + 1L) === None)
        } finally file.close()
        val whole = Files.readAllBytes(out)
        Seq(whole.length / 2, 5).foreach { length =>
          Files.write(out, whole.take(length)) // a compressor caught mid-write
          assert(text.startsWith(decompressed(out, format)), length)
        }
        Files.write(out, whole ++ whole) // what `cat a b` makes
        assert(decompressed(out, format).toSeq === (text ++ text).toSeq)
      } finally Files.delete(out)
    }
  }

  test("a compressed file that cannot be read fails, not taken for a short one") {
    val out = compressed("xz", dir.resolve("app.log.xz"))
    val file = FileChannel.open(out, StandardOpenOption.READ)
    try {
      val failing = new CountingChannel(file, () => throw new java.io.IOException("disk error"))
      intercept[java.io.IOException](Decompressed.open(failing, "xz"))
    } finally {
      file.close()
      Files.delete(out)
    }
  }

  test("text and empty files are not compressed; a file that is a magic's start is incomplete") {
    Seq("", "a line\n", "BZh9 is how the line starts\n").foreach { text =>
      Files.write(log, text.getBytes(UTF_8))
      assert(Compression.of(log) === None, text)
    }
    Seq("\u001f", "BZh9").foreach { text =>
      Files.write(log, text.getBytes(UTF_8))
      assert(Compression.of(log) === Some(Compression.Incomplete), text)
    }
  }
}
