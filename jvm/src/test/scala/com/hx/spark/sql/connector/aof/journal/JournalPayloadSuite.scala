package com.hx.spark.sql.connector.aof.journal

import java.io.{ByteArrayOutputStream, IOException, OutputStream}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8

import net.jpountz.lz4.LZ4Factory
import org.apache.commons.compress.compressors.xz.XZCompressorOutputStream
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorOutputStream
import org.scalatest.funsuite.AnyFunSuite

/**
 * Payloads in each compression a journal may hold. The systemd the suites run (Debian 12's 252)
 * writes zstd only, which `JournalFileSuite` reads from its files; the journals of older systemd
 * (lz4, xz) are made here the way systemd frames them.
 */
class JournalPayloadSuite extends AnyFunSuite {
  private val field = ("MESSAGE=" + "a message long enough to be compressed " * 40).getBytes(UTF_8)

  private def streamed(open: OutputStream => OutputStream): Array[Byte] = {
    val out = new ByteArrayOutputStream
    val compressor = open(out)
    compressor.write(field)
    compressor.close()
    out.toByteArray
  }

  /** systemd's lz4 framing: the size it decompresses to, little-endian, then one block. */
  private def lz4: Array[Byte] = {
    val block = LZ4Factory.fastestInstance().fastCompressor().compress(field)
    ByteBuffer
      .allocate(8 + block.length)
      .order(ByteOrder.LITTLE_ENDIAN)
      .putLong(field.length.toLong)
      .put(block)
      .array()
  }

  test("xz, lz4 and zstd payloads decompress to the field; an uncompressed one is as stored") {
    assert(JournalPayload.decompressed(field, 0, "f").toSeq === field.toSeq)
    val xz = streamed(new XZCompressorOutputStream(_))
    assert(JournalPayload.decompressed(xz, 1, "f").toSeq === field.toSeq)
    assert(JournalPayload.decompressed(lz4, 2, "f").toSeq === field.toSeq)
    val zstd = streamed(new ZstdCompressorOutputStream(_))
    assert(JournalPayload.decompressed(zstd, 4, "f").toSeq === field.toSeq)
  }

  test("a payload of two compressions, or an lz4 one cut short, is an error naming the file") {
    val both = intercept[IOException](JournalPayload.decompressed(field, 3, "system.journal"))
    assert(both.getMessage === "system.journal: a data object of unknown compression 3")
    val short = intercept[IOException] {
      JournalPayload.decompressed(lz4.dropRight(10), 2, "system.journal")
    }
    val said = "system.journal: a field compressed with lz4 does not decompress: "
    assert(short.getMessage.startsWith(said))
  }
}
