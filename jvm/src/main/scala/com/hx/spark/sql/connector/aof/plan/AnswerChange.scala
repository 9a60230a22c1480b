package com.hx.spark.sql.connector.aof.plan

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta}

/**
 * How a host's answer changed from an earlier one, told by reference. The driver applies each
 * answer's change to the last one (`Delta.applied`), which keeps the files' order and objects,
 * replaces the changed ones, drops the gone ones and puts the new ones after: walked side by
 * side, a file that is the same object is the same file, as it was. So what a trigger does per
 * file of a host (plan it, date its backlog) it does for the files that changed.
 *
 * @param files the answer's files
 * @param was   for each of them, its index in the earlier answer when the same object, else -1
 * @param gone  the keys of the earlier answer's files not in this one
 */
final class AnswerChange private (
    val files: Array[FileMeta],
    val was: Array[Int],
    val gone: Set[FileKey]) {

  /** The indexes in [[files]] of those not in the earlier answer as they are. */
  lazy val changed: IndexedSeq[Int] = files.indices.filter(was(_) < 0)
}

object AnswerChange {

  /**
   * From `before` to `after`; None when `after` is not `before` changed in place (another
   * order: compare the two in full).
   */
  def between(before: Array[FileMeta], after: Seq[FileMeta]): Option[AnswerChange] = {
    val now = after.toArray
    val was = Array.fill(now.length)(-1)
    val gone = mutable.Set.empty[FileKey]
    var j = 0
    var i = 0
    while (i < now.length) {
      val m = now(i)
      while (j < before.length && !(before(j) eq m) && before(j).key != m.key) {
        gone += before(j).key
        j += 1
      }
      if (j < before.length && (before(j) eq m)) was(i) = j
      j += 1
      i += 1
    }
    while (j < before.length) {
      gone += before(j).key
      j += 1
    }
    val change = new AnswerChange(now, was, gone.toSet)
    // A key gone and back: another order, not the change of one answer to the next.
    Some(change).filter(c => gone.isEmpty || !c.changed.exists(i => gone(now(i).key)))
  }
}
