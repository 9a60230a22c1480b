package com.hx.spark.sql.connector.aof.files.compression

import java.io.IOException
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Path, StandardOpenOption}

/**
 * Compressed files, told by their first bytes (the formats' magic numbers): what a rotation's
 * `compress` leaves, gzip by default or another `compresscmd` (bzip2, xz, zstd, lz4). Their bytes
 * are not lines: read as text, they would be rows of binary noise. Each is read as the lines it
 * decompresses to ([[Decompressed]]).
 */
object Compression {
  val Gzip: String = "gzip"
  val Bzip2: String = "bzip2"
  val Xz: String = "xz"
  val Zstd: String = "zstd"
  val Lz4: String = "lz4"

  /**
   * A file that is, whole, the first bytes of a magic number: a compressor's output caught as it
   * starts writing. Taken for text, it would be tracked from byte 0 and then found "replaced" by
   * its compressed content, which would be read whole, lines read already included.
   */
  val Incomplete: String = "incomplete"

  private def bytes(values: Int*): Seq[Byte] = values.map(_.toByte)

  private val Magics: Seq[(String, Seq[Seq[Byte]])] = Seq(
    Gzip -> Seq(bytes(0x1f, 0x8b, 0x08)),
    // "BZh", a block size digit, then a block's or the end of stream's own magic.
    Bzip2 -> ('1' to '9').flatMap { digit =>
      val head = "BZh".map(_.toInt) :+ digit.toInt
      Seq(head ++ Seq(0x31, 0x41, 0x59, 0x26, 0x53, 0x59), head ++ Seq(0x17, 0x72, 0x45, 0x38))
        .map(b => bytes(b: _*))
    },
    Xz -> Seq(bytes(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)),
    Zstd -> Seq(bytes(0x28, 0xb5, 0x2f, 0xfd)),
    Lz4 -> Seq(bytes(0x04, 0x22, 0x4d, 0x18))
  )
  private val Longest = Magics.flatMap(_._2).map(_.length).max

  /** Whether a file of `format` (of [[of]]) is read, decompressed: all but [[Incomplete]]. */
  def decompresses(format: String): Boolean = format != Incomplete

  /** The format whose magic number `head` (a file's first bytes, or all of them) starts with. */
  def of(head: Seq[Byte]): Option[String] =
    Magics
      .collectFirst { case (format, magics) if magics.exists(head.startsWith(_)) => format }
      .orElse {
        val magics = Magics.flatMap(_._2)
        Some(Incomplete).filter(_ =>
          head.nonEmpty && magics.exists(m => head.length < m.length && m.startsWith(head)))
      }

  /** The format of the file at `path`, from its first bytes. */
  @throws[IOException]
  def of(path: Path): Option[String] = {
    val channel = FileChannel.open(path, StandardOpenOption.READ)
    try of(channel)
    finally channel.close()
  }

  /** The format of the file `channel` reads, from its first bytes. */
  @throws[IOException]
  def of(channel: FileChannel): Option[String] = {
    val head = ByteBuffer.allocate(Longest)
    while (head.hasRemaining && channel.read(head, head.position().toLong) > 0) ()
    of(head.array().toSeq.take(head.position()))
  }
}
