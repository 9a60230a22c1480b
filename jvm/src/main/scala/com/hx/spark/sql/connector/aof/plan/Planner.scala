package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}

/**
 * Decides where the next micro-batch ends: a pure function of the start offset, what the nodes
 * reported and the limits. It follows the original connector's four conditions: C1, the start
 * offset tracks the file (its device and inode); C2, it tracks anything on the file's host; C3,
 * the fingerprints it kept match the node's (the same head, and the same bytes just before the
 * position); C4, the position is within the file's length now. C3 and C4 are judged by
 * [[com.hx.spark.sql.connector.aof.files.identity.FileIdentity]], as the node and the reader judge them. For a tracked file (C1):
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
 *    one look, [[com.hx.spark.sql.connector.aof.files.copies.NewFileCopies]]): the next answer shows it
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
 * A host missing from `news` did not answer in time and keeps its offsets unchanged; so does
 * a file its node could not read this time, which is neither lost nor new.
 *
 * A plan is a fixed point: planning again from its end against the same news changes nothing
 * (`Trigger.AvailableNow` plans all its batches against the news of its first trigger).
 */
object Planner {

  /** What the driver tells a node about the files of it that `start` tracks. */
  def known(start: AofOffset, host: String): Seq[KnownFile] =
    start.hosts.get(host).fold(Seq.empty[KnownFile])(_.known)

  /**
   * The files of `host` that `committed` read to their end (every byte they had when planned,
   * none skipped), by key, and that `start` has not read further: what `cleanup` may remove.
   */
  def removable(committed: AofOffset, start: AofOffset, host: String): Seq[FileKey] = {
    val now = start.hosts.get(host).fold(Map.empty[String, FileOffset])(_.files)
    committed.hosts
      .get(host)
      .toSeq
      .flatMap(_.files.values)
      .collect {
        case f
            if !f.skipped && f.seen > 0 && f.pos == f.seen &&
              now.get(f.fileId).exists(_.pos == f.pos) =>
          f.key
      }
      .sortBy(k => (k.dev, k.ino))
  }

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
      news: Map[String, Seq[FileMeta]],
      limits: PlanLimits,
      looked: Map[String, CopiesLookedFor] = Map.empty,
      expected: Set[String] = Set.empty,
      memos: PlanMemos = PlanMemos.none): Plan = {
    val unshared = planWith(start, news, limits, looked, None, memos)
    val (plan, planMemos) = limits.batchBytesMax.fold(unshared) { max =>
      val wants =
        Ranges
          .between(start, unshared._1.end)
          .map(r => (r.host, r.key) -> (r.until - r.from))
      planWith(start, news, limits, looked, Some(FairShare.of(wants, max)), memos)
    }
    planMemos.foreach { case (host, memo) => memos.keep(host, memo) }
    if (start.hosts.nonEmpty || expected.isEmpty) plan
    else {
      val waiting = expected.map(_ -> HostOffsets.Empty).toMap
      plan.copy(end = plan.end.copy(hosts = waiting ++ plan.end.hosts))
    }
  }

  /** @param shares the bytes each file (by host and key) may read, when the batch is shared */
  private def planWith(
      start: AofOffset,
      news: Map[String, Seq[FileMeta]],
      limits: PlanLimits,
      looked: Map[String, CopiesLookedFor],
      shares: Option[Map[(String, FileKey), Long]],
      memos: PlanMemos): (Plan, Map[String, PlanMemo]) = {
    val planned = InParallel
      .map(news.toSeq) { case (host, files) =>
        val share = shares.map(s => (key: FileKey) => s.getOrElse((host, key), 0L))
        val previous = start.hosts.get(host)
        val memo = memos.of(host)
        host -> new HostPlanner(host, previous, files, limits, share, looked.get(host), memo).plan()
      }
      .toMap
    val plan = Plan(
      AofOffset(start.hosts ++ planned.map { case (host, (offsets, _, _)) => host -> offsets }),
      planned.values.flatMap(_._2).toSeq.sortBy(l => (l.host, l.fileId)))
    (plan, planned.map { case (host, (_, _, memo)) => host -> memo })
  }
}
