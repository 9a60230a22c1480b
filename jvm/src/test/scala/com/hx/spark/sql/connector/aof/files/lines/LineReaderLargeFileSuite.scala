package com.hx.spark.sql.connector.aof.files.lines

import java.io.RandomAccessFile
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.{ISO_8859_1, UTF_8}
import java.nio.file.{Files, Path, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.lines.LineReaderSuite.{read, Line, Read}
import com.hx.spark.sql.connector.aof.testkit.Spark4Only

/** Files too large for an Int position or for the heap; sparse where they can be. */
@Spark4Only
class LineReaderLargeFileSuite extends AnyFunSuite {

  test("positions past 2 GiB and 3 GiB in a sparse 3 GiB file") {
    val file = Files.createTempFile("sparse-", ".log")
    try {
      val at2 = (2L << 30) + 5
      val at3 = (3L << 30) + 7
      val raf = new RandomAccessFile(file.toFile, "rw")
      try {
        raf.setLength((3L << 30) + 4096)
        raf.seek(at2 - 1)
        raf.write("\nbeyond two\n".getBytes(ISO_8859_1))
        raf.seek(at3 - 1)
        raf.write("\nbeyond three\n".getBytes(ISO_8859_1))
      } finally raf.close()
      val end = at3 + "beyond three\n".length
      val zeros = "\u0000" * 1000
      // Each range starts inside the zero-filled line before it: that line is the previous one's.
      assert(read(file, at2 - 3, at2 + 1) === Read(Seq(Line(at2, "beyond two")), false))
      assert(read(file, at3 - 2, end) === Read(Seq(Line(at3, "beyond three")), false))
      // Across 1 GiB of one zero-filled line, cut to its first bytes.
      val across = read(file, at2 - 3, end, max = zeros.length, buffer = 1 << 20)
      assert(
        across === Read(
          Seq(
            Line(at2, "beyond two"),
            Line(at2 + 11, zeros, truncated = true),
            Line(at3, "beyond three")),
          false))
    } finally Files.deleteIfExists(file)
  }

  test("a 100 MB line-free blob is read in constant memory (child JVM with a 32 MB heap)") {
    val blob = Files.createTempFile("blob-", ".bin")
    try {
      val out = Files.newOutputStream(blob)
      try {
        val chunk = Array.fill[Byte](1 << 20)('z')
        (1 to 100).foreach(_ => out.write(chunk))
      } finally out.close()
      assert(readInChild(blob) === "lines=0 truncated=false length=0 incomplete=true")
      Files.write(blob, Array[Byte]('\n'), StandardOpenOption.APPEND)
      assert(readInChild(blob) === "lines=1 truncated=true length=1048576 incomplete=false")
    } finally Files.deleteIfExists(blob)
  }

  private def readInChild(file: Path): String = {
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val process = new ProcessBuilder(
      java,
      "-Xmx32m",
      "-cp",
      System.getProperty("java.class.path"),
      BlobReaderMain.getClass.getName.stripSuffix("$"),
      file.toString)
      .redirectErrorStream(true)
      .start()
    val output = new String(process.getInputStream.readAllBytes(), UTF_8).trim
    assert(process.waitFor() === 0, output)
    output
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
      println(s"lines=$lines truncated=$truncated length=$length incomplete=${reader.incomplete}")
    } finally channel.close()
  }
}
