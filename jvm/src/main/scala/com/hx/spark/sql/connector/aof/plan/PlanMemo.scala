package com.hx.spark.sql.connector.aof.plan

import java.util.BitSet

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta}
import com.hx.spark.sql.connector.aof.offset.HostOffsets

/**
 * What a host's last plan found settled: the files it planned to the very offsets it tracked
 * them at, read to their line end, that no copy, reopening or retired file named. The next plan
 * from its end gives such a file the same offset again while its node's answer shows it as the
 * same object: so it plans only the files whose answer changed and those not settled, and a
 * host of 20,000 quiet files and one written costs a trigger what the one does.
 *
 * A cache, not an input: a plan made with it is the plan made in full (the models plan both
 * ways at every trigger and compare).
 *
 * @param files   the answer planned, in its order
 * @param end     the host's offsets that plan ended at
 * @param settled the indexes in `files` of the settled files
 */
private[plan] final class PlanMemo(
    val files: Array[FileMeta],
    val end: HostOffsets,
    val settled: BitSet) {

  /**
   * What changed in `now` (an answer to plan from `start`) that a plan must plan again: None
   * when `start` is not this plan's end, when `now` is not this answer changed in place
   * ([[AnswerChange]]), or when more than one file in `mostChanged` is to plan (planned in
   * full: the memo saves nothing).
   */
  def news(
      now: Seq[FileMeta],
      start: Option[HostOffsets],
      mostChanged: Int): Option[PlanMemo.News] =
    if (!start.exists(_ eq end)) None
    else
      AnswerChange.between(files, now).flatMap { change =>
        val kept = new BitSet(change.files.length)
        val toPlan = change.files.indices.filter { i =>
          val same = change.was(i) >= 0 && settled.get(change.was(i))
          if (same) kept.set(i)
          !same
        }
        Some(PlanMemo.News(change.files, toPlan, change.gone, kept))
          .filter(_.changed.size.toLong * mostChanged <= change.files.length)
      }
}

private[plan] object PlanMemo {

  /**
   * An answer against the last one planned: its files, the indexes of those to plan, the keys no
   * longer in it, and the indexes of the settled files kept as they were.
   */
  final case class News(
      files: Array[FileMeta],
      changed: IndexedSeq[Int],
      gone: Set[FileKey],
      kept: BitSet) {
    def changedFiles: IndexedSeq[FileMeta] = changed.map(files)
  }

  /** A file whose offset depends on its own answer alone. */
  def plain(m: FileMeta): Boolean =
    m.copyOf.isEmpty && m.copyOfRetired.isEmpty && m.continues.isEmpty && m.unreadable.isEmpty
}
