package com.hx.spark.sql.connector.aof.files

import java.io.{ByteArrayInputStream, EOFException, InputStream}
import java.nio.ByteBuffer
import java.nio.channels.{Channels, FileChannel}
import java.nio.file.{Files, StandardOpenOption}
import java.security.MessageDigest
import java.util.zip.GZIPInputStream

import org.apache.commons.codec.binary.Hex

/**
 * A gzip file's lines are the bytes it decompresses to. A gzip stream can only be read from its
 * start, while everything that reads files here reads at positions (heads, tails, line ends,
 * ranges), so the file is decompressed whole into a temporary file, deleted at once, and read
 * through the channel that keeps it: the same code then reads both kinds of file.
 *
 * A file still being written decompresses to a prefix of what it will hold, as a plain file being
 * appended to is read up to where it has got.
 */
object Gunzipped {
  private val Chunk = 64 * 1024

  /** A channel over the bytes `gzip` (a gzip file's channel, at any position) decompresses to. */
  def open(gzip: FileChannel): FileChannel = {
    val temp = Files.createTempFile("aof-", ".gunzipped")
    val out = FileChannel.open(temp, StandardOpenOption.READ, StandardOpenOption.WRITE)
    Files.delete(temp)
    try {
      val in = inflating(gzip)
      val buffer = new Array[Byte](Chunk)
      var n = read(in, buffer)
      while (n > 0) {
        val bytes = ByteBuffer.wrap(buffer, 0, n)
        while (bytes.hasRemaining) out.write(bytes)
        n = read(in, buffer)
      }
      out
    } catch {
      case e: Throwable =>
        out.close()
        throw e
    }
  }

  /** MD5 of the first `length` bytes `gzip` decompresses to; None when it holds fewer. */
  def headMd5(gzip: FileChannel, length: Long): Option[Fingerprint] = {
    val in = inflating(gzip)
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

  // Not closed by callers: closing it would close `gzip`, which its opener closes.
  private def inflating(gzip: FileChannel): InputStream = {
    val raw = Channels.newInputStream(gzip.position(0L))
    try new GZIPInputStream(raw, Chunk)
    catch { case _: EOFException => new ByteArrayInputStream(Array.emptyByteArray) }
  }

  /** Up to `length` bytes; -1 at the end, and where a file still being written ends. */
  private def read(in: InputStream, buffer: Array[Byte], length: Int = Chunk): Int =
    try in.read(buffer, 0, length)
    catch { case _: EOFException => -1 }
}
