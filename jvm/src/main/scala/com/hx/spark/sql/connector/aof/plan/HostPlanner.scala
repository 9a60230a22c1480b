package com.hx.spark.sql.connector.aof.plan

import java.util.BitSet

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopy
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileKey, FileMeta, Fingerprint}
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity.{Replaced, Same, Shorter}
import com.hx.spark.sql.connector.aof.offset.{FileOffset, HostOffsets, OpenTail, RetiredFile}

/**
 * One host's part of a plan ([[Planner]]): its files' next offsets, given its previous ones
 * and its node's answer, and the bytes lost there.
 */
private[plan] final class HostPlanner(
    host: String,
    previous: Option[HostOffsets],
    files: Seq[FileMeta],
    limits: PlanLimits,
    share: Option[FileKey => Long],
    looked: Option[CopiesLookedFor],
    memo: Option[(PlanMemo, Int)] = None) {
  // Only for copies and reopened files: not made for the thousands of a host's other files.
  private lazy val reported = files.map(m => m.key -> m).toMap
  private val retired = previous.fold(Map.empty[String, RetiredFile])(_.retired)
  private var nextSerial = previous.fold(0L)(_.nextSerial)
  // The files (tracked or retired, by file id) a copy continues in this plan.
  private val continued = mutable.Set.empty[String]
  private val identity = limits.identity

  // The file the previous offsets track under `key`.
  private def trackedAs(key: FileKey): Option[FileOffset] = previous.flatMap(_.ofKey(key))

  /** The host's next offsets, the bytes lost, and what the next plan may skip. */
  def plan(): (HostOffsets, Seq[Loss], PlanMemo) = {
    val news = memo.flatMap { case (m, mostChanged) => m.news(files, previous, mostChanged) }
    val all = news.fold(files.toArray)(_.files)
    // The files planned again: all, or those the memo cannot vouch for.
    val toPlan = news.fold(all.indices: IndexedSeq[Int])(_.changed)
    val settled = news.fold(new BitSet(all.length))(_.kept.clone().asInstanceOf[BitSet])
    val continuedByCopy =
      toPlan.flatMap(all(_).copyOf).filter(k => !trackedAs(k).exists(holds))
    val (reopened, others) = toPlan.partition(all(_).continues.nonEmpty)
    val planned =
      if (reopened.isEmpty) toPlan.flatMap(i => planSettling(all(i), i, settled))
      else {
        settled.clear() // a reopened file moves the one it continues after its plan
        val byKey =
          mutable.LinkedHashMap(others.flatMap(i => planFile(all(i))).map(f => f.key -> f): _*)
        // A settled file is planned as it is tracked: what the file it continues is planned to.
        lazy val planning = toPlan.iterator.map(all(_).key).toSet
        val settledAs = (k: FileKey) =>
          trackedAs(k).filter(_ => news.nonEmpty && reported.contains(k) && !planning(k))
        reopened.foreach(i => continueTail(all(i), byKey, settledAs))
        byKey.values.toSeq
      }
    val before = previous.fold(Map.empty[String, FileOffset])(_.files)
    // Most files keep their offsets, the same objects: only the others are gone over.
    val changed = planned.filterNot(f => before.get(f.fileId).exists(_ eq f))
    val unplanned = news match {
      case Some(n) =>
        // The memo's settled files were planned as they were: the others' keys are the rest.
        val ids = planned.iterator.map(_.fileId).toSet
        (n.gone.iterator ++ toPlan.iterator.map(all(_).key))
          .flatMap(trackedAs)
          .filterNot(f => ids(f.fileId))
          .toSeq
          .distinct
      case None =>
        val carried = planned.size - changed.count(f => !before.contains(f.fileId))
        if (carried == before.size) Nil
        else {
          val ids = planned.iterator.map(_.fileId).toSet
          before.values.filterNot(f => ids(f.fileId)).toSeq
        }
    }
    // Gone, or its key holds other content now, and no copy of it is in this answer.
    val ended = unplanned.filterNot(f => continuedByCopy.contains(f.key))
    val (retiring, lostNow) = ended.partition(f => FileIdentity.copyable(f.fingerprint))
    val (stillRetired, dropped) = retiredAfter(toPlan.map(all))
    val nowRetired = stillRetired ++ retiring.map(f => f.fileId -> RetiredFile(f))
    val losses = (lostNow.map(_ -> None) ++ dropped).flatMap { case (f, copy) =>
      // A copy the source does not read holds what it copied: more than seen, if written since.
      val until = math.max(f.seen, copy.fold(0L)(_.size))
      Some(Loss(host, f.path, f.fileId, f.pos, until, copy.map(_.path))).filter(_ => until > f.pos)
    }
    // Offsets equal to the previous ones are those very ones: later steps skip the host by them.
    val kept = previous.filter { p =>
      p.nextSerial == nextSerial && unplanned.isEmpty && p.retired == nowRetired &&
      changed.forall(f => before.get(f.fileId).contains(f))
    }
    val nowFiles = before -- unplanned.map(_.fileId) ++ changed.map(f => f.fileId -> f)
    val offsets = kept.getOrElse {
      val next = HostOffsets(nextSerial, nowFiles, nowRetired)
      previous.fold(next) { p =>
        HostOffsets.madeFrom(next, p, (changed.iterator ++ unplanned).map(_.fileId).toSet)
      }
    }
    (offsets, losses, new PlanMemo(all, offsets, settled))
  }

  /** [[planFile]], noting a file planned to its tracked offset at its line end as settled. */
  private def planSettling(meta: FileMeta, index: Int, settled: BitSet): Option[FileOffset] = {
    val planned = planFile(meta)
    val tracked = trackedAs(meta.key)
    if (PlanMemo.plain(meta) && planned.exists(f =>
        tracked.exists(_ eq f) && f.pos == meta.lineEnd))
      settled.set(index)
    planned
  }

  private def planFile(meta: FileMeta): Option[FileOffset] =
    trackedAs(meta.key) match {
      case Some(f) if meta.unreadable.nonEmpty => Some(f.copy(path = meta.path))
      case Some(f) => follow(f, meta)
      case None if meta.unreadable.nonEmpty || meta.size == 0 => None
      case None =>
        copied(meta).getOrElse {
          val latest = previous.isEmpty && limits.startingOffsets == StartingOffsets.Latest
          val from = if (latest || meta.ignored) meta.lineEnd else meta.start
          Some(fresh(meta, from, skipped = from > meta.start))
        }
    }

  /**
   * A runtime's file reopened amid a message ([[FileMeta.continues]]): planned once the file
   * it continues is planned to its open tail, which this one's first range then reads, and
   * which that file moves past in the same batch; until then it waits, as it is.
   */
  private def continueTail(
      meta: FileMeta,
      planned: mutable.Map[FileKey, FileOffset],
      settledAs: FileKey => Option[FileOffset]): Unit = {
    // Read to its open tail, and past the tail of the file it continues in turn, if any.
    val renamed = meta.continues.flatMap(k => planned.get(k).orElse(settledAs(k))).filter { r =>
      reported.get(r.key).exists { m =>
        r.pos == m.lineEnd && m.size > m.lineEnd && (m.continues.isEmpty || r.continues.nonEmpty)
      }
    }
    val now = renamed.fold(trackedAs(meta.key))(_ => planFile(meta))
    now.foreach { f =>
      val from = trackedAs(meta.key).filter(_.fileId == f.fileId).fold(f.first)(_.pos)
      planned(meta.key) = renamed.filter(_ => from == 0L && f.pos > 0L).fold(f) { r =>
        val size = reported(r.key).size
        planned(r.key) = r.copy(pos = size, tail = None, seen = size)
        f.copy(continues = Some(OpenTail(r.fileId, r.pos)))
      }
    }
  }

  /**
   * The files retired before that stay retired, and those given up, each with the copy the source
   * does not read that the answer found of it: an answer that looked for copies of one found none,
   * or found only files shorter than its position too many times. One this answer did not look
   * for (planned again against an earlier answer) stays as it is.
   */
  private def retiredAfter(planning: Seq[FileMeta])
      : (Map[String, RetiredFile], Seq[(FileOffset, Option[UnmatchedCopy])]) = {
    val after = retired.toSeq.filterNot { case (id, _) => continued(id) }.map { case (id, r) =>
      looked.filter(l => l.ids.contains(id) && l.answer != r.lastAsk) match {
        case None => id -> Some(r)
        case Some(l) =>
          // A copy of a retired file is never settled: it is among those planned.
          val waiting = planning.exists(_.copyOfRetired.contains(id))
          val asked = r.asked + 1
          id -> Some(RetiredFile(r.file, asked, l.answer)).filter(_ =>
            waiting && asked < RetiredFile.MaxAsked)
      }
    }
    (
      after.collect { case (id, Some(r)) => id -> r }.toMap,
      after.collect { case (id, None) =>
        retired(id).file -> looked.flatMap(_.unmatched.get(id))
      })
  }

  /**
   * For a copy of a tracked file: None while the original holds its content (the copy waits),
   * else the copy, read on from the original's position. For a copy of a retired file: read
   * on from its position once it reaches it; one shorter waits. A second copy of a file that
   * a copy continues in this plan waits too: it is a copy of that one in the next.
   */
  private def copied(meta: FileMeta): Option[Option[FileOffset]] = {
    // A copy was read, before `from`, as its original was: skipped if that was.
    def continue(of: FileOffset, from: Long) =
      if (continued.add(of.fileId)) Some(fresh(meta, from, of.skipped)) else None
    val ofTracked = meta.copyOf.filter(_ != meta.key).flatMap(trackedAs).map { original =>
      if (holds(original)) None
      else continue(original, math.min(original.pos, meta.size))
    }
    // Of a file the answer shows first too (both new in one look): it waits, as above.
    val ofNew = meta.copyOf.filter(k => trackedAs(k).isEmpty && reported.contains(k))
    ofTracked
      .orElse(ofNew.map(_ => None))
      .orElse(meta.copyOfRetired.flatMap(retired.get).map { r =>
        if (meta.size < r.file.pos) None else continue(r.file, r.file.pos)
      })
  }

  // An original that cannot be read now may still hold its content: its copy waits.
  private def holds(f: FileOffset): Boolean = reported.get(f.key).exists { meta =>
    meta.unreadable.nonEmpty || identity.ofKey(f.known, meta) == Same
  }

  private def follow(f: FileOffset, meta: FileMeta): Option[FileOffset] =
    identity.ofKey(f.known, meta) match {
      // Emptied, or another file under a reused key (an inode) not written yet: it may be a copy
      // about to be written (a rotation's .gz), as an empty new file may.
      case Replaced if meta.size == 0 => None
      // Another file under a reused key (an inode), which may be a copy of another tracked one.
      case Replaced => copied(meta).getOrElse(Some(fresh(meta, 0L)))
      case Shorter =>
        Some(
          f.copy(
            path = meta.path,
            pos = meta.size,
            fingerprint = meta.fingerprint,
            tail = None,
            seen = meta.size))
      case Same =>
        val pos = advance(f.pos, meta)
        val tail =
          if (pos != f.pos) tailAt(pos, meta)
          else f.tail.orElse(meta.tailAtFloor.filter(_ => meta.floor.contains(f.pos)))
        // An idle file keeps its offset, the same object: comparing offsets (the checkpoint's
        // changes, the next request) then ends at the reference for most files.
        val idle = pos == f.pos && tail == f.tail && f.seen == meta.size && f.path == meta.path &&
          f.fingerprint == meta.fingerprint
        if (idle) Some(f)
        else
          Some(
            f.copy(
              path = meta.path,
              pos = pos,
              fingerprint = meta.fingerprint,
              tail = tail,
              seen = meta.size))
    }

  private def fresh(meta: FileMeta, first: Long, skipped: Boolean = false): FileOffset = {
    val serial = nextSerial
    nextSerial += 1
    val pos = advance(first, meta)
    FileOffset(
      meta.path,
      meta.key,
      serial,
      first,
      pos,
      meta.fingerprint,
      tailAt(pos, meta),
      meta.size,
      skipped = skipped)
  }

  private def tailAt(pos: Long, meta: FileMeta): Option[Fingerprint] =
    if (pos == meta.lineEnd) meta.tailAtLineEnd else None

  private def advance(from: Long, meta: FileMeta): Long = {
    val maxima = limits.bytesMax.toSeq ++ share.map(_(meta.key))
    val cap = maxima.foldLeft(meta.lineEnd) { (end, max) =>
      if (max > Long.MaxValue - from) end else math.min(end, from + max)
    }
    if (cap <= from || cap >= meta.lineEnd) math.max(from, cap)
    else {
      // The last line (or record) start within the limit; at least one, so a file always
      // moves. Never inside a line: the reader reads a line it starts whole, so the rest of
      // it would be read but not passed, and counted lost if the file went next.
      val starts = meta.cuts.filter(c => c > from && c < meta.lineEnd)
      starts.filter(_ <= cap).lastOption.orElse(starts.headOption).getOrElse(meta.lineEnd)
    }
  }
}
