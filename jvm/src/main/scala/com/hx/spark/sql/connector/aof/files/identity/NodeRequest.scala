package com.hx.spark.sql.connector.aof.files.identity

import scala.collection.mutable

/**
 * What the driver asks a node about its files: those it tracks there, and those it retired (no
 * longer tracked, but a copy of which may still show up, by file id). Decides, from what a look
 * found, whether the look may have missed something; the [[DirectoryScanner]] does the looking.
 *
 * @param before the node's last request, if any, which is asked no more: what this one asks
 *               otherwise is told from it ([[changed]]), and its map of files by key taken over
 *               where few changed, not made again for 20,000 files at each look
 */
private[files] final class NodeRequest(
    val known: Seq[KnownFile],
    val retired: Map[String, KnownFile],
    sampleLength: Int,
    identity: FileIdentity,
    before: Option[NodeRequest] = None) {

  /**
   * The files (by key) asked otherwise than the last request asked them, or by one of the two
   * only; None without a last request. Objects are compared: the exchange gives an unchanged
   * file's request as it gave it before.
   */
  def changed: Option[Seq[FileKey]] = changedKeys

  private val (changedKeys, byKey) = NodeRequest.compared(known, before)

  /** The files asked of, by key. */
  def knownByKey: collection.Map[FileKey, KnownFile] = byKey

  // What `keepsTracked` said of each answer: it is asked several times of a file at a look. Not
  // sized for every file: a look among thousands of quiet ones asks it of the few it describes.
  private val kept = new java.util.IdentityHashMap[FileMeta, java.lang.Boolean]()

  // Whether a file not tracked may be a copy of a tracked or retired one, by its head: it starts
  // with such a file's head, or with the shorter head of one read while shorter than the sample.
  private lazy val candidates = known ++ retired.values
  private lazy val copiedHeads = candidates.map(_.fingerprint).toSet
  private lazy val shortHeads = candidates.exists(_.fingerprint.length < sampleLength)

  def mayBeCopy(head: Fingerprint): Boolean = shortHeads || copiedHeads.contains(head)

  def tracks(key: FileKey): Boolean = knownByKey.contains(key)

  /** How many of `found` (each file once) are tracked: a look counts them as it finds them. */
  def trackedIn(found: Seq[FileMeta]): Int = found.count(m => tracks(m.key))

  /**
   * Whether a tracked file is missing from a look that found `trackedFound` of them. A rotation
   * renaming files while they are listed can hide one from a listing; taken as deleted, it would
   * be read again from 0 when it shows up under its next name.
   */
  def missesTracked(trackedFound: Int): Boolean = trackedFound < knownByKey.size

  /**
   * Whether a look may have missed a copy, given the files it found `afresh` (not taken as kept:
   * the others are tracked files that keep their heads, copies of none) and how many of all it
   * found are tracked. A tracked file gone, or its key now another file's, is
   * retired by the driver unless the answer names its copy; a look can miss that copy: described
   * half-written before the original was deleted later in the look, or renamed while listed
   * (untracked files are not looked for again). A rotation deletes a file only once its copy is
   * whole, and renames in a moment: a second look sees the copy. So does one for a retired file
   * without a copy, which the driver gives up once an answer finds none.
   */
  def mayMissCopies(afresh: Seq[FileMeta], trackedFound: Int): Boolean =
    missesTracked(trackedFound) || afresh.exists(replacedTracked) ||
      retired.keys.exists(id => !afresh.exists(_.copyOfRetired.contains(id)))

  /** Whether `m` is a tracked file that still starts as it did: no other file under its key. */
  def keepsTracked(m: FileMeta): Boolean = {
    val said = kept.get(m)
    if (said != null) said
    else {
      val keeps =
        knownByKey.get(m.key).exists(k => identity.keepsHead(k, m.headAt(k.fingerprint.length)))
      kept.put(m, keeps)
      keeps
    }
  }

  // A tracked key found holding content with another head (an inode reused).
  private def replacedTracked(m: FileMeta): Boolean =
    m.unreadable.isEmpty && tracks(m.key) && !keepsTracked(m)
}

private[files] object NodeRequest {

  /**
   * What `known` asks otherwise than `before` (None without one), and its files by key. Pair by
   * pair while the two ask of the same files in the same order, as the exchange gives them while
   * none is added or dropped: then `before`'s map is taken over with the few changed. By key when
   * they do not (a rotation adds one, drops another).
   */
  private def compared(
      known: Seq[KnownFile],
      before: Option[NodeRequest]): (Option[Seq[FileKey]], mutable.HashMap[FileKey, KnownFile]) =
    before.fold((Option.empty[Seq[FileKey]], keyed(known))) { b =>
      val pairwise = mutable.ArrayBuffer.empty[KnownFile]
      var sameOrder = b.known.size == known.size
      val was = b.known.iterator
      val now = known.iterator
      while (sameOrder && was.hasNext) {
        val w = was.next()
        val k = now.next()
        if (!(w eq k)) {
          if (w.key == k.key) pairwise += k else sameOrder = false
        }
      }
      if (sameOrder) {
        pairwise.foreach(k => b.byKey(k.key) = k)
        (Some(pairwise.map(_.key).toList), b.byKey)
      } else {
        val now = keyed(known)
        val asked = now.iterator.collect {
          case (key, k) if !b.byKey.get(key).exists(_ eq k) => key
        }
        (Some((asked ++ b.byKey.keysIterator.filterNot(now.contains)).toList), now)
      }
    }

  private def keyed(files: Seq[KnownFile]): mutable.HashMap[FileKey, KnownFile] = {
    val m = mutable.HashMap.empty[FileKey, KnownFile]
    m.sizeHint(files.size)
    files.foreach(k => m(k.key) = k)
    m
  }
}
