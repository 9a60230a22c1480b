package com.hx.spark.sql.connector.aof.files.scan

import com.hx.spark.sql.connector.aof.files.compression.Decompressed
import com.hx.spark.sql.connector.aof.files.copies.{NewFileCopies, ShortHeadCopies}
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, IdentityEvidence, NodeRequest
}

/**
 * What a look's files are copies of: tracked files known by a short head ([[ShortHeadCopies]]),
 * and files new to the driver ([[NewFileCopies]]), on the bytes [[IdentityEvidence]] reads; a file
 * that may be a copy of one gone amid the look waits for the next.
 */
private[files] final class LookCopies(
    sampleLength: Int,
    identity: FileIdentity,
    tracker: FileTracker) {
  private val shortHeads = new ShortHeadCopies(sampleLength, identity)
  private val newCopies = new NewFileCopies(identity)

  /**
   * A look's files, each with the tracked or new file it is a copy of, if any, but for those that
   * may be copies of a file gone amid the look ([[LookCopies.undecided]]); and whether to look
   * again: one is a copy of a new file, a rotation overtook the look ([[NewFileCopies]]), or a file
   * the look found went before its bytes could be compared (a rotation's compressor done and its
   * original deleted, amid the look).
   */
  def answer(look: DirectoryLook, request: NodeRequest): (Seq[FileMeta], Boolean) = {
    // Only for files that may be copies: most files of most looks are tracked.
    lazy val byKey = look.found.map(m => m.key -> m).toMap
    val evidence = new IdentityEvidence(sampleLength, tracker.compressed, Decompressed.headMd5)
    try {
      // The same answer, the same object: comparing it with the last answer's ends there. The
      // files found as kept are tracked files that keep their heads: copies of none.
      val metas = look.afresh.map { m =>
        val copyOf = shortHeads.copyOf(m, request, byKey, evidence)
        if (copyOf == m.copyOf) m else m.copy(copyOf = copyOf)
      }
      val unsettled = (key: FileKey) => look.stampOf(key).exists(!tracker.settled(_))
      val found = newCopies.of(metas, request, unsettled, tracker.compressed, evidence)
      val undecided =
        LookCopies.undecided(look.asKept ++ metas, found.copyOf.contains, request, evidence)
      val withCopies = metas
        .filterNot(m => found.heldBack(m.key) || undecided(m.key))
        .map(m => found.copyOf.get(m.key).fold(m)(o => m.copy(copyOf = Some(o))))
      (look.asKept ++ withCopies, found.copyOf.nonEmpty || found.overtaken || evidence.missed)
    } finally evidence.close()
  }
}

private object LookCopies {

  /**
   * The files whose copy could not be told for want of another file's bytes: that file went
   * amid the look (a compressor done, its original deleted) after the look described it, and the
   * evidence could not read it. One named a copy of none, and not a tracked file that keeps
   * its head, that may be a copy of it (no longer, and with its head where the answers tell both)
   * is left out of the answer: reported, it would be read from its start beside that file, which
   * the answer holds too. The next look finds that file gone, or both there.
   */
  def undecided(
      found: Seq[FileMeta],
      copies: FileKey => Boolean,
      request: NodeRequest,
      evidence: IdentityEvidence): Set[FileKey] =
    if (!evidence.missed) Set.empty // most looks
    else {
      val unread = evidence.unread
      val gone = found.filter(m => unread(m.key) && m.unreadable.isEmpty)
      def mayCopy(m: FileMeta, o: FileMeta) =
        m.key != o.key && m.size <= o.size &&
          (m.fingerprint.length != o.fingerprint.length || m.fingerprint == o.fingerprint)
      found.iterator
        .filter(m => m.size > 0 && m.copyOf.isEmpty && m.copyOfRetired.isEmpty && !copies(m.key))
        .filter(m => !unread(m.key) && !request.keepsTracked(m) && gone.exists(mayCopy(m, _)))
        .map(_.key)
        .toSet
    }
}
