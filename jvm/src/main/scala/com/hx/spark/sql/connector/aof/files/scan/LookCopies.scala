package com.hx.spark.sql.connector.aof.files.scan

import com.hx.spark.sql.connector.aof.files.compression.Decompressed
import com.hx.spark.sql.connector.aof.files.copies.{NewFileCopies, ShortHeadCopies}
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, IdentityEvidence, NodeRequest
}

/**
 * What a look's files are copies of: tracked files known by a short head ([[ShortHeadCopies]]),
 * and files new to the driver ([[NewFileCopies]]), on the bytes [[IdentityEvidence]] reads.
 */
private[files] final class LookCopies(
    sampleLength: Int,
    identity: FileIdentity,
    tracker: FileTracker) {
  private val shortHeads = new ShortHeadCopies(sampleLength, identity)
  private val newCopies = new NewFileCopies(identity)

  /**
   * A look's files, each with the tracked or new file it is a copy of, if any; and whether to look
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
      val withCopies = metas
        .filterNot(m => found.heldBack(m.key))
        .map(m => found.copyOf.get(m.key).fold(m)(o => m.copy(copyOf = Some(o))))
      (look.asKept ++ withCopies, found.copyOf.nonEmpty || found.overtaken || evidence.missed)
    } finally evidence.close()
  }
}
