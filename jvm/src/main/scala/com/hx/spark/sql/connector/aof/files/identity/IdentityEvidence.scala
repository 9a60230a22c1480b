package com.hx.spark.sql.connector.aof.files.identity

import java.io.{Closeable, IOException}
import java.nio.channels.FileChannel
import java.nio.file.Paths

import scala.collection.mutable

/**
 * What one look knows of its files' bytes, for telling a copy: a file's head (the MD5 of its
 * first bytes) and a tail (of the bytes before a position). Taken from the file's answer when it
 * holds them (its head and probe, its tails at its floor and at its line end), else read from the
 * file, each at most once per look, each file opened once. The rules that judge the evidence are
 * [[FileIdentity]]'s. A compressed file's head is decompressed only as far as asked; its tails
 * are never read here (each a pass over all it holds): its answer's are all there is of them. A
 * file gone since reads nothing, and says so ([[missed]], [[unread]]): the look is then out of
 * date, a rotation under way.
 *
 * @param compressed     whether a file (by key) is compressed
 * @param compressedHead the MD5 of the first bytes (of a length) a compressed file, open,
 *                       decompresses to; None when it holds fewer
 */
private[files] final class IdentityEvidence(
    sampleLength: Int,
    compressed: FileKey => Boolean,
    compressedHead: (FileChannel, Long) => Option[Fingerprint] = (_, _) => None)
    extends Closeable {
  private val channels = mutable.Map.empty[FileKey, Option[FileChannel]]
  private val heads = mutable.Map.empty[(FileKey, Long), Option[Fingerprint]]
  private val tails = mutable.Map.empty[(FileKey, Long), Option[Fingerprint]]
  private val failed = mutable.Set.empty[FileKey]

  /** Whether a file the look found could not be read since: gone, or no longer readable. */
  def missed: Boolean = failed.nonEmpty

  /** The files (by key) of [[missed]]. */
  def unread: collection.Set[FileKey] = failed

  /** The MD5 of `m`'s first `length` bytes; None when it is shorter, or cannot be read. */
  def head(m: FileMeta, length: Long): Option[Fingerprint] =
    m.headAt(length).orElse {
      if (m.size < length) None
      else {
        val md5 = (c: FileChannel) =>
          if (compressed(m.key)) compressedHead(c, length) else Prefixes.md5(c, length)
        heads.getOrElseUpdate((m.key, length), read(m)(md5))
      }
    }

  /** The MD5 of the bytes of `m` just before `end`; None when it does not reach it. */
  def tail(m: FileMeta, end: Long): Option[Fingerprint] =
    m.tailAt(end).getOrElse {
      if (end == m.lineEnd && m.tailAtLineEnd.nonEmpty) m.tailAtLineEnd
      else if (compressed(m.key)) None
      else
        tails.getOrElseUpdate((m.key, end), read(m)(Prefixes.tail(_, end, sampleLength.toLong)))
    }

  private def read[T](m: FileMeta)(f: FileChannel => Option[T]): Option[T] =
    channels
      .getOrElseUpdate(
        m.key,
        try Some(FileChannel.open(Paths.get(m.path)))
        catch { case _: IOException => failed += m.key; None })
      .flatMap { channel =>
        try f(channel)
        catch { case _: IOException => failed += m.key; None }
      }

  override def close(): Unit = channels.values.flatten.foreach(_.close())
}
