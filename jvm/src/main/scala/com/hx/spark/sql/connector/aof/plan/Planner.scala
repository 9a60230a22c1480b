package com.hx.spark.sql.connector.aof.plan

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.{
  FileIdentity,
  FileKey,
  FileMeta,
  Fingerprint,
  KnownFile
}
import com.hx.spark.sql.connector.aof.files.FileIdentity.{Replaced, Same, Shorter}
import com.hx.spark.sql.connector.aof.offset.{
  AofOffset,
  FileOffset,
  HostOffsets,
  OpenTail,
  RetiredFile
}

/**
 * Decides where the next micro-batch ends: a pure function of the start offset, what the nodes
 * reported and the limits. It follows the original connector's four conditions: C1, the start
 * offset tracks the file (its device and inode); C2, it tracks anything on the file's host; C3,
 * the fingerprints it kept match the node's (the same head, and the same bytes just before the
 * position); C4, the position is within the file's length now. C3 and C4 are judged by
 * [[com.hx.spark.sql.connector.aof.files.FileIdentity]], as the node and the reader judge them. For a tracked file (C1):
 *
 *  - C3 and C4: read on, up to its last complete line (or record), `bytes.max` and its share
 *    of `batch.bytes.max`.
 *  - C3 but not C4 (cut back, same head): continue at its current length.
 *  - not C3 (replaced, truncated, or an inode reused): a new file for this query, from byte 0,
 *    unless it is a copy of another tracked file (a rotation's .gz given a deleted file's inode),
 *    which is planned as any copy is, below; or empty, which waits as an empty new file does.
 *
 * For a file not tracked yet (not C1):
 *
 *  - a copy of a tracked file that no longer holds its content (logrotate's `copytruncate`)
 *    continues from that file's position; while the original still holds it (the copy being
 *    written, or not yet truncated) the copy waits, so no line is read from both. So does a copy
 *    of a file not tracked yet that the same answer shows (a file and its copy first seen in
 *    one look, [[com.hx.spark.sql.connector.aof.files.NewFileCopies]]): the next answer shows it
 *    a copy of a tracked file;
 *  - an empty file waits until it has bytes: it may be a copy about to be written;
 *  - on a host this query has offsets for (C2): created since, read from byte 0;
 *  - on a host seen for the first time (not C2): `starting.offsets`. A node the query had to
 *    read from its first plan on (`nodes`) is tracked from then, with no file: its files are
 *    read from byte 0 when it is first seen later.
 *
 * A tracked file that is gone, or replaced, and not continued by a copy, is retired
 * ([[RetiredFile]]): a copy of it that a node shows only later (a listing that missed it, a look
 * that saw the original cut before it saw the copy) still continues from its position, and only
 * a whole copy does (one is whole before its original goes). It stays retired until an answer
 * that looked for its copies finds none, or finds only files that start like it but are shorter
 * than its position, [[RetiredFile.MaxAsked]] times (those wait meanwhile); then its unread bytes
 * are lost. One with no head (empty when last seen) has nothing a copy could be told by, and is
 * lost at once; one read to position 0 only (no complete line yet) is continued by a copy from
 * its start, as a new file would be, so that its bytes are not counted lost. Two copies of one
 * file seen at once: the first (by path) continues it, the other waits and is then a copy of
 * that one.
 *
 * A container runtime's file reopened amid a message (`FileMeta.continues`) is read from its
 * start only after the open tail of the file it continues: it waits until that file is planned
 * to its tail, then its first range reads the tail first and that file moves to its end in the
 * same batch (`FileOffset.continues`, [[Ranges]]).
 *
 * A host missing from `reports` did not answer in time and keeps its offsets unchanged; so does
 * a file its node could not read this time, which is neither lost nor new.
 *
 * A plan is a fixed point: planning again from its end against the same reports changes nothing
 * (`Trigger.AvailableNow` plans all its batches against the reports of its first trigger).
 */
object Planner {

  /** What the driver tells a node about the files of it that `start` tracks. */
  def known(start: AofOffset, host: String): Seq[KnownFile] =
    start.hosts.get(host).toSeq.flatMap(_.files.values).sortBy(_.fileId).map(_.known)

  /** What the driver tells a node about the files of it that `start` retired, by file id. */
  def retired(start: AofOffset, host: String): Map[String, KnownFile] =
    start.hosts
      .get(host)
      .fold(Map.empty[String, KnownFile])(_.retired.map { case (id, r) => id -> r.file.known })

  /**
   * With `batchBytesMax`, planned twice: once to learn what each file would read, then with the
   * batch's bytes shared over them ([[FairShare]]).
   *
   * @param looked   the retired files each host's answer looked for copies of
   * @param expected the nodes the query must read (`nodes`): on its first plan (`start` tracks
   *                 no host) those that did not answer get empty offsets, so that their files,
   *                 first seen later, are read from byte 0, as files created since are: no line
   *                 written after the query began is skipped there
   */
  def plan(
      start: AofOffset,
      reports: Map[String, Seq[FileMeta]],
      limits: PlanLimits,
      looked: Map[String, CopiesLookedFor] = Map.empty,
      expected: Set[String] = Set.empty): Plan = {
    val unshared = planWith(start, reports, limits, looked, None)
    val plan = limits.batchBytesMax.fold(unshared) { max =>
      val wants =
        Ranges
          .between(start, unshared.end)
          .map(r => (r.host, r.key) -> (r.until - r.from))
      planWith(start, reports, limits, looked, Some(FairShare.of(wants, max)))
    }
    if (start.hosts.nonEmpty || expected.isEmpty) plan
    else {
      val waiting = expected.map(_ -> HostOffsets.Empty).toMap
      plan.copy(end = plan.end.copy(hosts = waiting ++ plan.end.hosts))
    }
  }

  /** @param shares the bytes each file (by host and key) may read, when the batch is shared */
  private def planWith(
      start: AofOffset,
      reports: Map[String, Seq[FileMeta]],
      limits: PlanLimits,
      looked: Map[String, CopiesLookedFor],
      shares: Option[Map[(String, FileKey), Long]]): Plan = {
    val planned = InParallel
      .map(reports.toSeq) { case (host, files) =>
        val share = shares.map(s => (key: FileKey) => s.getOrElse((host, key), 0L))
        val previous = start.hosts.get(host)
        host -> new HostPlanner(host, previous, files, limits, share, looked.get(host)).plan()
      }
      .toMap
    Plan(
      AofOffset(start.hosts ++ planned.map { case (host, (offsets, _)) => host -> offsets }),
      planned.values.flatMap(_._2).toSeq.sortBy(l => (l.host, l.fileId)))
  }

  private final class HostPlanner(
      host: String,
      previous: Option[HostOffsets],
      files: Seq[FileMeta],
      limits: PlanLimits,
      share: Option[FileKey => Long],
      looked: Option[CopiesLookedFor]) {
    private val tracked = previous.toSeq.flatMap(_.files.values).map(f => f.key -> f).toMap
    private val reported = files.map(m => m.key -> m).toMap
    private val retired = previous.fold(Map.empty[String, RetiredFile])(_.retired)
    private var nextSerial = previous.fold(0L)(_.nextSerial)
    // The files (tracked or retired, by file id) a copy continues in this plan.
    private val continued = mutable.Set.empty[String]
    private val identity = limits.identity

    def plan(): (HostOffsets, Seq[Loss]) = {
      val continuedByCopy = files.flatMap(_.copyOf).filter(k => !tracked.get(k).exists(holds))
      val (reopened, others) = files.partition(_.continues.nonEmpty)
      val byKey = mutable.LinkedHashMap(others.flatMap(planFile).map(f => f.key -> f): _*)
      reopened.foreach(continueTail(_, byKey))
      val planned = byKey.values.toSeq
      val plannedIds = planned.map(_.fileId).toSet
      // Gone, or its key holds other content now, and no copy of it is in this answer.
      val ended = tracked.values.toSeq.filter { f =>
        !plannedIds.contains(f.fileId) && !continuedByCopy.contains(f.key)
      }
      val (retiring, lostNow) = ended.partition(f => FileIdentity.copyable(f.fingerprint))
      val (stillRetired, dropped) = retiredAfter()
      val nowRetired = stillRetired ++ retiring.map(f => f.fileId -> RetiredFile(f))
      val losses = (lostNow ++ dropped).collect {
        case f if f.seen > f.pos => Loss(host, f.path, f.fileId, f.pos, f.seen)
      }
      val kept = previous.filter { p =>
        p.nextSerial == nextSerial && p.files.size == planned.size && p.retired == nowRetired &&
        planned.forall(f => p.files.get(f.fileId).exists(_ eq f))
      }
      val offsets =
        kept.getOrElse(HostOffsets(nextSerial, planned.map(f => f.fileId -> f).toMap, nowRetired))
      (offsets, losses)
    }

    private def planFile(meta: FileMeta): Option[FileOffset] =
      tracked.get(meta.key) match {
        case Some(f) if meta.unreadable.nonEmpty => Some(f.copy(path = meta.path))
        case Some(f) => follow(f, meta)
        case None if meta.unreadable.nonEmpty || meta.size == 0 => None
        case None =>
          copied(meta).getOrElse {
            val latest = previous.isEmpty && limits.startingOffsets == StartingOffsets.Latest
            Some(fresh(meta, if (latest || meta.ignored) meta.lineEnd else 0L))
          }
      }

    /**
     * A runtime's file reopened amid a message ([[FileMeta.continues]]): planned once the file
     * it continues is planned to its open tail, which this one's first range then reads, and
     * which that file moves past in the same batch; until then it waits, as it is.
     */
    private def continueTail(meta: FileMeta, planned: mutable.Map[FileKey, FileOffset]): Unit = {
      // Read to its open tail, and past the tail of the file it continues in turn, if any.
      val renamed = meta.continues.flatMap(planned.get).filter { r =>
        reported.get(r.key).exists { m =>
          r.pos == m.lineEnd && m.size > m.lineEnd && (m.continues.isEmpty || r.continues.nonEmpty)
        }
      }
      val now = renamed.fold(tracked.get(meta.key))(_ => planFile(meta))
      now.foreach { f =>
        val from = tracked.get(meta.key).filter(_.fileId == f.fileId).fold(f.first)(_.pos)
        planned(meta.key) = renamed.filter(_ => from == 0L && f.pos > 0L).fold(f) { r =>
          val size = reported(r.key).size
          planned(r.key) = r.copy(pos = size, tail = None, seen = size)
          f.copy(continues = Some(OpenTail(r.fileId, r.pos)))
        }
      }
    }

    /**
     * The files retired before that stay retired, and those given up: an answer that looked for
     * copies of one found none, or found only files shorter than its position too many times.
     * One this answer did not look for (planned again against an earlier answer) stays as it is.
     */
    private def retiredAfter(): (Map[String, RetiredFile], Seq[FileOffset]) = {
      val after = retired.toSeq.filterNot { case (id, _) => continued(id) }.map { case (id, r) =>
        looked.filter(l => l.ids.contains(id) && l.answer != r.lastAsk) match {
          case None => id -> Some(r)
          case Some(l) =>
            val waiting = files.exists(_.copyOfRetired.contains(id))
            val asked = r.asked + 1
            id -> Some(RetiredFile(r.file, asked, l.answer)).filter(_ =>
              waiting && asked < RetiredFile.MaxAsked)
        }
      }
      (
        after.collect { case (id, Some(r)) => id -> r }.toMap,
        after.collect { case (id, None) => retired(id).file })
    }

    /**
     * For a copy of a tracked file: None while the original holds its content (the copy waits),
     * else the copy, read on from the original's position. For a copy of a retired file: read
     * on from its position once it reaches it; one shorter waits. A second copy of a file that
     * a copy continues in this plan waits too: it is a copy of that one in the next.
     */
    private def copied(meta: FileMeta): Option[Option[FileOffset]] = {
      def continue(id: String, from: Long) =
        if (continued.add(id)) Some(fresh(meta, from)) else None
      val ofTracked = meta.copyOf.filter(_ != meta.key).flatMap(tracked.get).map { original =>
        if (holds(original)) None
        else continue(original.fileId, math.min(original.pos, meta.size))
      }
      // Of a file the answer shows first too (both new in one look): it waits, as above.
      val ofNew = meta.copyOf.filter(k => !tracked.contains(k) && reported.contains(k))
      ofTracked
        .orElse(ofNew.map(_ => None))
        .orElse(meta.copyOfRetired.flatMap(retired.get).map { r =>
          if (meta.size < r.file.pos) None else continue(r.file.fileId, r.file.pos)
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

    private def fresh(meta: FileMeta, first: Long): FileOffset = {
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
        meta.size)
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
}
