package com.hx.spark.sql.connector.aof.files.copies

import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, IdentityEvidence, KnownFile, NodeRequest
}

/**
 * Which tracked file a file is a copy of, where its head cannot tell: that file is known by a
 * head shorter than the sample (it was tracked while shorter, or while empty: no head at all,
 * which the describer cannot match), or this file is shorter than that head (a copy begun: a
 * compressor's output part way), and the tracked file still holds it. A short head is weak
 * evidence: a file that merely shares a header starts with it too, and taken for a copy it would
 * wait for as long as the original holds. So a file is then taken for a copy only if it starts
 * with all of the original's bytes as they are now, up to its own length (or the sample):
 * logrotate's copy, made before it truncates the original and seen between the two, or its
 * compressed copy, seen before the original is deleted; either, read as a new file, would repeat
 * what the original's reader read. Otherwise the describer's answer stands.
 */
private[files] final class ShortHeadCopies(sampleLength: Int, identity: FileIdentity) {

  /** `m`'s `copyOf`, given the request, the look's answers by key and what it read of them. */
  def copyOf(
      m: FileMeta,
      request: NodeRequest,
      byKey: => Map[FileKey, FileMeta],
      evidence: IdentityEvidence): Option[FileKey] = {
    def held(k: KnownFile): Option[FileMeta] = byKey.get(k.key).filter { o =>
      o.unreadable.nonEmpty || identity.ofKey(k, o) == FileIdentity.Same
    }
    def short(k: KnownFile) = k.fingerprint.length < sampleLength
    val knownByKey = request.knownByKey
    m.copyOf.flatMap(knownByKey.get) match {
      case Some(k) if short(k) =>
        held(k).fold(m.copyOf)(o => Some(k.key).filter(_ => copies(m, o, evidence)))
      case Some(_) => m.copyOf
      case None =>
        if (m.unreadable.nonEmpty || m.size == 0 || request.keepsTracked(m)) None
        else
          knownByKey.values.toSeq
            .filter(k => k.key != m.key && (!FileIdentity.copyable(k.fingerprint) || begun(m, k)))
            .filter(k => held(k).exists(copies(m, _, evidence)))
            .sortBy(k => (-k.floor, k.key.ino))
            .headOption
            .map(_.key)
    }
  }

  // Shorter than `k`'s head, which the describer tells a copy by.
  private def begun(m: FileMeta, k: KnownFile): Boolean = m.size < k.fingerprint.length

  /** Whether `m` holds the first bytes of `o` as they are now, all of `m` (or of the sample). */
  private def copies(m: FileMeta, o: FileMeta, evidence: IdentityEvidence): Boolean =
    o.unreadable.isEmpty && m.size > 0 && m.size <= o.size &&
      FileIdentity.sameHead(m.fingerprint, evidence.head(o, m.fingerprint.length))
}
