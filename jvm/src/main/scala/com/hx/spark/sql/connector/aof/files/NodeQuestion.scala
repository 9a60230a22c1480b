package com.hx.spark.sql.connector.aof.files

import scala.collection.mutable

/**
 * What the driver asks a node about its files: those it tracks there, and those it retired (no
 * longer tracked, but a copy of which may still show up, by file id). Decides, from what a look
 * found, whether the look may have missed something; the [[DirectoryScanner]] does the looking.
 */
private[files] final class NodeQuestion(
    val known: Seq[KnownFile],
    val retired: Map[String, KnownFile],
    sampleLength: Int,
    identity: FileIdentity) {
  val knownByKey: collection.Map[FileKey, KnownFile] = {
    val byKey = mutable.HashMap.empty[FileKey, KnownFile]
    byKey.sizeHint(known.size)
    known.foreach(k => byKey(k.key) = k)
    byKey
  }
  // What `keepsTracked` said of each answer: it is asked several times of every file at a look.
  private val kept = new java.util.IdentityHashMap[FileMeta, java.lang.Boolean](known.size)

  // Whether a file not tracked may be a copy of a tracked or retired one, by its head: it starts
  // with such a file's head, or with the shorter head of one read while shorter than the sample.
  private lazy val candidates = known ++ retired.values
  private lazy val copiedHeads = candidates.map(_.fingerprint).toSet
  private lazy val shortHeads = candidates.exists(_.fingerprint.length < sampleLength)

  def mayBeCopy(head: Fingerprint): Boolean = shortHeads || copiedHeads.contains(head)

  def tracks(key: FileKey): Boolean = knownByKey.contains(key)

  /**
   * Whether a tracked file is missing from `found` (each file once). A rotation renaming files
   * while they are listed can hide one from a listing; taken as deleted, it would be read again
   * from 0 when it shows up under its next name.
   */
  def missesTracked(found: Seq[FileMeta]): Boolean =
    found.count(m => tracks(m.key)) < knownByKey.size

  /**
   * Whether `found` may have missed a copy. A tracked file gone, or its key now another file's, is
   * retired by the driver unless the answer names its copy; a look can miss that copy: described
   * half-written before the original was deleted later in the look, or renamed while listed
   * (untracked files are not looked for again). A rotation deletes a file only once its copy is
   * whole, and renames in a moment: a second look sees the copy. So does one for a retired file
   * without a copy, which the driver gives up once an answer finds none.
   */
  def mayMissCopies(found: Seq[FileMeta]): Boolean =
    missesTracked(found) || found.exists(replacedTracked) ||
      retired.keys.exists(id => !found.exists(_.copyOfRetired.contains(id)))

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

  /** `m` is a tracked file that keeps its head, as a look before found with the same question. */
  def keepsTrackedAsBefore(m: FileMeta): Unit = kept.put(m, true)

  // A tracked key found holding content with another head (an inode reused).
  private def replacedTracked(m: FileMeta): Boolean =
    m.unreadable.isEmpty && tracks(m.key) && !keepsTracked(m)
}
