package com.hx.spark.sql.connector.aof.offset

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, KnownFile}

/**
 * Progress of one host: its files by file id, the next serial to hand out there, and the files
 * no longer tracked whose copy may still show up ([[RetiredFile]]), by file id.
 */
final case class HostOffsets(
    nextSerial: Long,
    files: Map[String, FileOffset],
    retired: Map[String, RetiredFile] = Map.empty) {

  // Made once an offset, from the one a plan made it from where that one has it: each trigger
  // looks a host's changed files up by key, and a host may have thousands of others.
  @transient @volatile private var byKeyMade = false
  @transient private lazy val byKey: Map[FileKey, FileOffset] = {
    val made = Option(origin).flatMap { case (from, ids) =>
      Option(from.get).filter(_.byKeyMade).map { f =>
        val dropped = ids.iterator.flatMap(f.files.get).filter(o => f.byKey.get(o.key).contains(o))
        f.byKey -- dropped.map(_.key) ++ ids.iterator.flatMap(files.get).map(o => o.key -> o)
      }
    }
    val m = made.getOrElse(files.valuesIterator.map(f => f.key -> f).toMap)
    byKeyMade = true
    m
  }

  /**
   * What a node is told of its files: in the order of `files`, the same for the same file ids
   * (a hash map's), so that the next request, with a few files moved on, is compared with this
   * one pair by pair, not sorted again.
   */
  @transient lazy val known: Seq[KnownFile] = files.valuesIterator.map(_.known).toVector

  /** The file it tracks under `key`, if any. */
  def ofKey(key: FileKey): Option[FileOffset] = byKey.get(key)

  // What a plan made it from, while that is still in use: the ids of the files it added, moved
  // or dropped since. Weak: each trigger's offsets would keep every earlier one's.
  @transient @volatile private var origin: (java.lang.ref.WeakReference[HostOffsets], Set[String]) =
    _

  /**
   * The ids of the files added, changed or no longer tracked since `before`, when a plan made
   * these offsets from it; None when it did not (compare the two in full).
   */
  def changedSince(before: HostOffsets): Option[Set[String]] =
    Option(origin).collect { case (from, ids) if from.get eq before => ids }
}

object HostOffsets {
  val Empty: HostOffsets = HostOffsets(0L, Map.empty)

  /** `next`, made by a plan from `before` by changing the files `ids` only. */
  def madeFrom(next: HostOffsets, before: HostOffsets, ids: Set[String]): HostOffsets = {
    if (!(next eq before)) next.origin = (new java.lang.ref.WeakReference(before), ids)
    next
  }
}
