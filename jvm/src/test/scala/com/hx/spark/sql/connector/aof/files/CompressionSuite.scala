package com.hx.spark.sql.connector.aof.files

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/** Each compressor a rotation may use, run for real on a log, and text that only looks alike. */
class CompressionSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val dir = Files.createTempDirectory("compressed-")
  private val log = dir.resolve("app.log")
  Files.write(log, ("a line of text\n" * 200).getBytes(UTF_8))

  override protected def afterAll(): Unit = {
    Files.delete(log)
    Files.delete(dir)
  }

  Seq("gzip", "bzip2", "xz", "zstd", "lz4").foreach { format =>
    test(s"$format's output is told by its first bytes") {
      val out = dir.resolve(s"app.log.$format")
      // -c: to stdout, which the system writes straight to `out`; the log stays.
      val compressor = new ProcessBuilder(format, "-c", "-q", log.toString)
        .redirectOutput(out.toFile)
        .start()
      assert(compressor.waitFor() === 0)
      assert(Compression.of(out) === Some(format))
      Files.delete(out)
    }
  }

  test("text, empty files and a lone magic byte are not compressed") {
    Seq("", "a line\n", "BZh9 is how the line starts\n", "\u001f").foreach { text =>
      Files.write(log, text.getBytes(UTF_8))
      assert(Compression.of(log) === None, text)
    }
  }
}
