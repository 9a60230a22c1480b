package com.hx.spark.sql.connector.aof.files

import java.io.IOException
import java.nio.channels.FileChannel
import java.nio.file.Paths

/**
 * Which tracked file a file is a copy of, where that file is known by a head shorter than the
 * sample (it was tracked while shorter, or while empty: no head at all, which the describer
 * cannot match) and still holds it. A short head is weak evidence: a file that merely shares a
 * header starts with it too, and taken for a copy it would wait for as long as the original
 * holds. So a file is then taken for a copy only if it starts with all of the original's bytes as
 * they are now, up to its own length (or the sample): logrotate's copy, made before it truncates
 * the original and seen between the two, which read as a new file would repeat what the
 * original's reader reads from it once the original is cut. Otherwise the describer's answer
 * stands.
 *
 * @param compressed whether a file (by key) is compressed: its bytes are not read here
 */
private[files] final class ShortHeadCopies(
    sampleLength: Int,
    identity: FileIdentity,
    compressed: FileKey => Boolean) {

  /** `m`'s `copyOf`, given the question and the look's answers by key. */
  def copyOf(
      m: FileMeta,
      question: NodeQuestion,
      byKey: Map[FileKey, FileMeta]): Option[FileKey] = {
    def held(k: KnownFile): Option[FileMeta] = byKey.get(k.key).filter { o =>
      o.unreadable.nonEmpty || identity.ofKey(k, o) == FileIdentity.Same
    }
    def short(k: KnownFile) = k.fingerprint.length < sampleLength
    val knownByKey = question.knownByKey
    m.copyOf.flatMap(knownByKey.get) match {
      case Some(k) if short(k) => held(k).fold(m.copyOf)(o => Some(k.key).filter(_ => copies(m, o)))
      case Some(_) => m.copyOf
      case None =>
        if (m.unreadable.nonEmpty || m.size == 0 || question.keepsTracked(m)) None
        else
          knownByKey.values.toSeq
            .filter(k => !FileIdentity.copyable(k.fingerprint) && k.key != m.key)
            .filter(k => held(k).exists(copies(m, _)))
            .sortBy(k => (-k.floor, k.key.ino))
            .headOption
            .map(_.key)
    }
  }

  /** Whether `m` holds the first bytes of `o` as they are now, all of `m` (or of the sample). */
  private def copies(m: FileMeta, o: FileMeta): Boolean =
    o.unreadable.isEmpty && m.size > 0 && m.size <= o.size && {
      val length = m.fingerprint.length
      val head =
        if (o.fingerprint.length == length) Some(o.fingerprint)
        else if (compressed(o.key)) None
        else
          try {
            val channel = FileChannel.open(Paths.get(o.path))
            try Prefixes.md5(channel, length)
            finally channel.close()
          } catch { case _: IOException => None }
      FileIdentity.sameHead(m.fingerprint, head)
    }
}
