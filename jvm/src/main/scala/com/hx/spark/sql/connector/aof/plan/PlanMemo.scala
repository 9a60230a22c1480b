package com.hx.spark.sql.connector.aof.plan

import java.util.BitSet
import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta}
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
   * What changed in `now` (an answer to plan from `start`): None when `start` is not this
   * plan's end, or when more than one file in `mostChanged` changed (planned in full, the walk
   * saves nothing).
   *
   * Answers change in place: a host's next answer keeps its files' order and objects, with the
   * changed ones replaced, the gone ones dropped and the new ones after ([[Delta.applied]]). So
   * the two are walked side by side, comparing references; another order is planned in full.
   */
  def news(
      now: Seq[FileMeta],
      start: Option[HostOffsets],
      mostChanged: Int): Option[PlanMemo.News] =
    if (!start.exists(_ eq end)) None
    else {
      val after = now.toArray
      val changed = mutable.ArrayBuffer.empty[Int]
      val gone = mutable.Set.empty[FileKey]
      val kept = new BitSet(after.length)
      var j = 0
      var i = 0
      while (i < after.length) {
        val m = after(i)
        while (j < files.length && !(files(j) eq m) && files(j).key != m.key) {
          gone += files(j).key
          j += 1
        }
        if (j < files.length && (files(j) eq m) && settled.get(j)) kept.set(i) else changed += i
        j += 1
        i += 1
      }
      while (j < files.length) {
        gone += files(j).key
        j += 1
      }
      // A key gone and back (another order): not the change of one answer to the next.
      val news = PlanMemo.News(after, changed.toIndexedSeq, gone.toSet, kept)
      Some(news).filter(n =>
        n.changed.size.toLong * mostChanged <= after.length &&
          (gone.isEmpty || !n.changedFiles.exists(m => gone(m.key))))
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

/**
 * Each host's [[PlanMemo]], kept by whoever plans again and again (a stream, a follower).
 *
 * @param keeps       false: keeps none, and every plan is made in full
 * @param mostChanged a memo is used while at most one file in this many changed
 */
final class PlanMemos(keeps: Boolean = true, mostChanged: Int = 4) {
  private val byHost = new ConcurrentHashMap[String, PlanMemo]()

  private[plan] def of(host: String): Option[(PlanMemo, Int)] =
    Option(byHost.get(host)).map(_ -> mostChanged)

  private[plan] def keep(host: String, memo: PlanMemo): Unit = if (keeps) byHost.put(host, memo)
}

object PlanMemos {

  /** Keeps nothing: every plan in full. */
  def none: PlanMemos = new PlanMemos(keeps = false)

  /** Uses its memos however much changed: the models plan through them, against plans in full. */
  def always: PlanMemos = new PlanMemos(mostChanged = 1)
}
