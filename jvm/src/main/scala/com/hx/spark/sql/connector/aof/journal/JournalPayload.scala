package com.hx.spark.sql.connector.aof.journal

import java.io.{ByteArrayInputStream, IOException}
import java.nio.{ByteBuffer, ByteOrder}

import net.jpountz.lz4.LZ4Factory
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream
import org.apache.commons.io.IOUtils

/**
 * A data object's payload as stored: journald compresses a large one with xz, lz4 or zstd (its
 * object's flags say which), with the decoders Spark ships. An lz4 payload is systemd's own
 * framing: the size it decompresses to (8 bytes, little-endian), then one lz4 block.
 */
private[journal] object JournalPayload {
  private val Xz = 1
  private val Lz4 = 2
  private val Zstd = 4

  /** The payload's bytes, decompressed as the object's `flags` say; `name` names the file. */
  def decompressed(stored: Array[Byte], flags: Int, name: String): Array[Byte] = {
    def failed(kind: String, why: String): Nothing =
      throw new IOException(s"$name: a field compressed with $kind does not decompress: $why")
    def decoded(kind: String)(decode: => Array[Byte]): Array[Byte] =
      try decode
      catch { case e @ (_: IOException | _: RuntimeException) => failed(kind, e.toString) }
    flags & (Xz | Lz4 | Zstd) match {
      case 0 => stored
      case Xz =>
        decoded("xz")(IOUtils.toByteArray(new XZCompressorInputStream(in(stored))))
      case Zstd =>
        decoded("zstd")(IOUtils.toByteArray(new ZstdCompressorInputStream(in(stored))))
      case Lz4 =>
        if (stored.length < 8) failed("lz4", s"${stored.length} bytes, less than its size")
        val size = ByteBuffer.wrap(stored, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong
        if (size < 0 || size > Int.MaxValue) failed("lz4", s"it says it holds $size bytes")
        val block = stored.length - 8
        decoded("lz4")(
          LZ4Factory.fastestInstance().safeDecompressor().decompress(stored, 8, block, size.toInt))
      case other => throw new IOException(s"$name: a data object of unknown compression $other")
    }
  }

  private def in(stored: Array[Byte]): ByteArrayInputStream = new ByteArrayInputStream(stored)
}
