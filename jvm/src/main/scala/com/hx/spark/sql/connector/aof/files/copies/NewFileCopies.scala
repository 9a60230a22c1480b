package com.hx.spark.sql.connector.aof.files.copies

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, IdentityEvidence, KnownFile, NodeRequest
}

/**
 * Copies among the files one look shows that the driver does not know yet. The describer tells a
 * copy only of a file the driver tracks or retired, so a file first seen in the same look as its
 * copy would be read twice from its start: logrotate's `copytruncate` of a file written since the
 * last trigger, run while the look went on (the file described before its copy was made, the
 * copy after), or caught between its copy and its truncate.
 *
 * Two such files, one holding all the other's complete lines and one of them just written (not
 * settled, as a copy made now is), make the scanner look again: the rotation has most often ended
 * by then, its original cut. Found again, one is reported a copy of the other. The driver reads
 * the other as any new file; the copy waits, as a copy of a tracked file does. From the next look
 * on that file is tracked, and the describer's own rules take over: the copy continues from its
 * position once it no longer holds those bytes, or is a file of its own once it differs. With
 * `copytruncate`, a wrong guess of which is the copy costs one trigger's wait.
 *
 * The copy is a tracked key now holding another file, since the driver takes a `copyOf` naming a
 * tracked key for the file it tracks there; else the one the other holds all of (a copy made
 * while its original grew on); else, each holding the other, the second one looked at. Two
 * settled files alike are left as they are, each read: this is about a rotation caught in the act.
 *
 * A compressed file is not judged so (its bytes are read only decompressed, as its answer says
 * them), but by a rule of its own: one that holds the start of a new plain file of the look, or
 * all of it, is that file's compressor's output, begun or done, beside an original not deleted
 * yet. Nothing else writes such a pair, settled or not, and the copy waits for its original.
 * Where the original is under a tracked key (an inode given again), which a `copyOf` naming it
 * could not tell from the file the driver tracks there, the compressed file is left out of this
 * answer: the original is read as a new file, and from the next look on the compressed file is
 * a copy of a tracked one. (Naming the original the copy instead, the follower model found
 * lines never read and lines read under two keys.) A compressed file that holds more than a new
 * plain file, from that file's head, is that file's output too, the look overtaken: the file
 * described, then written on, renamed and compressed before the look came to the output's name
 * (which it listed for an older rotation). The scanner looks again, and finds the original gone,
 * or whole beside its output.
 */
private[files] final class NewFileCopies(identity: FileIdentity) {

  /**
   * The files that are copies of another new file, by key, with that file's key; and those to
   * leave out of the answer for now.
   *
   * @param recent whether a file (by key) was written just before it was described
   * @param compressed whether a file (by key) is compressed
   */
  def of(
      found: Seq[FileMeta],
      request: NodeRequest,
      recent: FileKey => Boolean,
      compressed: FileKey => Boolean,
      evidence: IdentityEvidence): NewFileCopies.Found = {
    val (packed, plain) = found
      .filter(m => m.unreadable.isEmpty && m.size > 0 && !request.keepsTracked(m))
      .partition(m => compressed(m.key))
    def copyOfNone(m: FileMeta) = m.copyOf.isEmpty && m.copyOfRetired.isEmpty
    // Of any new plain file, a copy itself or not: a copytruncate's copy is compressed in turn.
    val candidates = packed.filter(copyOfNone)
    val pairs = candidates.flatMap(c => plain.find(begins(c, _, evidence)).map(c -> _))
    val (heldBack, named) = pairs.partition { case (_, original) => request.tracks(original.key) }
    val compressedCopies = named.map { case (c, original) => c.key -> original.key }
    NewFileCopies.Found(
      compressedCopies.toMap ++ plainCopies(plain.filter(copyOfNone), request, recent, evidence),
      heldBack.map(_._1.key).toSet,
      candidates.exists(c => plain.exists(overtook(c, _, evidence)))
    )
  }

  private def plainCopies(
      candidates: Seq[FileMeta],
      request: NodeRequest,
      recent: FileKey => Boolean,
      evidence: IdentityEvidence): Map[FileKey, FileKey] =
    if (!candidates.exists(m => recent(m.key))) Map.empty // most triggers
    else {
      val copyOf = mutable.Map.empty[FileKey, FileKey]
      def paired(k: FileKey) = copyOf.contains(k) || copyOf.values.exists(_ == k)
      val indexed = candidates.zipWithIndex
      // Each pair with a file just written, once: a few such files against all the others.
      for {
        (r, i) <- indexed if recent(r.key)
        (o, j) <- indexed if j != i && !(recent(o.key) && j < i)
        (a, b) = if (i < j) (r, o) else (o, r)
        if !paired(a.key) && !paired(b.key)
        (copy, original) <- copyAndOriginal(a, b, request, evidence)
      } copyOf(copy.key) = original.key
      copyOf.toMap
    }

  /** Whether compressed `c` holds the first bytes of plain `p`, as far as `c`'s complete lines. */
  private def begins(c: FileMeta, p: FileMeta, evidence: IdentityEvidence): Boolean =
    c.size <= p.size &&
      FileIdentity.sameHead(c.fingerprint, evidence.head(p, c.fingerprint.length)) &&
      c.tailAtLineEnd.forall(t => evidence.tail(p, c.lineEnd).contains(t))

  /** Whether compressed `c` holds more than plain `p` as `p` was described, from `p`'s head. */
  private def overtook(c: FileMeta, p: FileMeta, evidence: IdentityEvidence): Boolean =
    c.size > p.size &&
      FileIdentity.sameHead(p.fingerprint, evidence.head(c, p.fingerprint.length))

  /** Which of `a` and `b` (looked at in that order) is a copy of the other, if either is. */
  private def copyAndOriginal(
      a: FileMeta,
      b: FileMeta,
      request: NodeRequest,
      evidence: IdentityEvidence): Option[(FileMeta, FileMeta)] = {
    lazy val aHoldsB = holds(a, b, evidence)
    lazy val bHoldsA = holds(b, a, evidence)
    (request.tracks(a.key), request.tracks(b.key)) match {
      case (true, true) => None
      case (true, false) => Some((a, b)).filter(_ => aHoldsB || bHoldsA)
      case (false, true) => Some((b, a)).filter(_ => aHoldsB || bHoldsA)
      case _ if bHoldsA => Some((a, b)).filter(_ => !aHoldsB).orElse(Some((b, a)))
      case _ => Some((b, a)).filter(_ => aHoldsB)
    }
  }

  /** Whether `x` holds all of `y`'s complete lines as `y` was described. */
  private def holds(x: FileMeta, y: FileMeta, evidence: IdentityEvidence): Boolean = {
    val known = KnownFile(y.key, y.lineEnd, y.fingerprint, y.tailAtLineEnd)
    val head = evidence.head(x, y.fingerprint.length)
    identity.ofCopy(known, x.size, head, Some(evidence.tail(x, y.lineEnd))) == FileIdentity.Same
  }
}

private[files] object NewFileCopies {

  /**
   * Copies of new files (by key, with the file's key), the files to leave out for now, and
   * whether a rotation overtook the look.
   */
  final case class Found(copyOf: Map[FileKey, FileKey], heldBack: Set[FileKey], overtaken: Boolean)
}
