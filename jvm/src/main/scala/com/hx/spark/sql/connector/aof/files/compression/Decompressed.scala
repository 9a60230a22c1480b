package com.hx.spark.sql.connector.aof.files.compression

import java.io.{ByteArrayInputStream, IOException, InputStream}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Files, StandardOpenOption}
import java.security.MessageDigest
import java.util.zip.GZIPInputStream

import org.apache.commons.codec.binary.Hex
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorInputStream
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream

import com.hx.spark.sql.connector.aof.files.identity.Fingerprint

/**
 * A compressed file's lines are the bytes it decompresses to ([[Compression]]'s formats). A
 * compressed stream can only be read from its start, while everything that reads files here
 * reads at positions (heads, tails, line ends, ranges), so the file is decompressed whole into a
 * temporary file, deleted at once, and read through the channel that keeps it: the same code
 * then reads every kind of file.
 *
 * A file still being written decompresses to a prefix of what it will hold, as a plain file being
 * appended to is read up to where it has got: where the decoder finds the stream cut short (or
 * not yet valid), what it gave so far is all the file holds for now. A failure to read the file
 * itself is not that: it is raised, and the file reported unreadable.
 *
 * The decoders are those Spark ships: the JDK's gzip, and Commons Compress's bzip2, xz (over
 * XZ for Java), lz4 frames, and zstd (over zstd-jni). Concatenated streams (`cat a.gz b.gz`,
 * `pbzip2`) are read whole.
 */
object Decompressed {
  private val Chunk = 64 * 1024

  /** A channel over the bytes `file` (of `format`) decompresses to. */
  def open(file: FileChannel, format: String): FileChannel = {
    val temp = Files.createTempFile("aof-", ".decompressed")
    val out = FileChannel.open(temp, StandardOpenOption.READ, StandardOpenOption.WRITE)
    Files.delete(temp)
    try {
      decoded(file, format) { in =>
        val buffer = new Array[Byte](Chunk)
        var n = read(in, buffer)
        while (n > 0) {
          val bytes = ByteBuffer.wrap(buffer, 0, n)
          while (bytes.hasRemaining) out.write(bytes)
          n = read(in, buffer)
        }
      }
      out
    } catch {
      case e: Throwable =>
        out.close()
        throw e
    }
  }

  /**
   * MD5 of the first `length` bytes `file` decompresses to, by the format its magic number says;
   * None when it holds fewer, or is no compressed file it can read.
   */
  def headMd5(file: FileChannel, length: Long): Option[Fingerprint] =
    Compression.of(file).filter(Compression.decompresses).flatMap(headMd5(file, _, length))

  /** MD5 of the first `length` bytes `file` decompresses to; None when it holds fewer. */
  def headMd5(file: FileChannel, format: String, length: Long): Option[Fingerprint] =
    decoded(file, format) { in =>
      val digest = MessageDigest.getInstance("MD5")
      val buffer = new Array[Byte](math.min(length, Chunk.toLong).toInt.max(1))
      var done = 0L
      var n = 0
      while (done < length && n >= 0) {
        n = read(in, buffer, math.min(buffer.length.toLong, length - done).toInt)
        if (n > 0) {
          digest.update(buffer, 0, n)
          done += n
        }
      }
      if (done < length) None
      else Some(Fingerprint(length, Hex.encodeHexString(digest.digest())))
    }

  /** `f` of the decoder of `file`, closed after (which leaves `file` open: its opener's). */
  private def decoded[T](file: FileChannel, format: String)(f: InputStream => T): T = {
    val raw = new FileBytes(file)
    val in =
      try {
        format match {
          case Compression.Gzip => new GZIPInputStream(raw, Chunk)
          case Compression.Bzip2 => new BZip2CompressorInputStream(raw, true)
          case Compression.Xz => new XZCompressorInputStream(raw, true)
          case Compression.Zstd => new ZstdCompressorInputStream(raw)
          case Compression.Lz4 => new FramedLZ4CompressorInputStream(raw, true)
        }
      } catch {
        case e: FileBytes.Failed => throw e.getCause
        case _: IOException => new ByteArrayInputStream(Array.emptyByteArray) // no header yet
      }
    try f(in)
    finally in.close()
  }

  /** Up to `length` bytes; -1 at the end, and where a file still being written ends. */
  private def read(in: InputStream, buffer: Array[Byte], length: Int = Chunk): Int =
    try in.read(buffer, 0, length)
    catch {
      case e: FileBytes.Failed => throw e.getCause
      case _: IOException => -1
    }

  /**
   * The file's bytes from its start, read at positions (the channel's own position is left
   * alone), its read failures told apart from the decoder's.
   */
  private final class FileBytes(file: FileChannel) extends InputStream {
    private var at = 0L

    override def read(): Int = {
      val one = new Array[Byte](1)
      if (read(one, 0, 1) <= 0) -1 else one(0) & 0xff
    }

    override def read(b: Array[Byte], off: Int, len: Int): Int =
      if (len == 0) 0
      else {
        val n =
          try file.read(ByteBuffer.wrap(b, off, len), at)
          catch { case e: IOException => throw new FileBytes.Failed(e) }
        if (n > 0) at += n
        n
      }
  }

  private object FileBytes {

    /** Raised through the decoder, which would take an IOException for a stream cut short. */
    final class Failed(cause: IOException) extends RuntimeException(cause) {
      override def getCause: IOException = cause
    }
  }
}
