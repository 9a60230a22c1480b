package com.hx.spark.sql.connector.aof.files.cleanup

import java.nio.file.{Path, Paths}
import java.time.Clock

import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, FileStamp, KnownFile
}

/**
 * [[Cleanup]] as a node's looks run it, one look after another: which files of the driver's
 * `remove` a look finds removable, when each began to wait, and which could not be removed
 * ([[RemovalWarnings]]).
 *
 * @param forget told each directory a file was removed from, so the next look lists it again
 */
private[files] final class CleanupRun(
    cleanup: Option[Cleanup],
    identity: FileIdentity,
    stat: Path => FileStamp,
    clock: Clock,
    forget: Path => Unit) {
  private val notRemoved = new RemovalWarnings(clock)
  private var waitingSince = Map.empty[FileKey, Cleanup.Since]
  @volatile private var removedLast = Seq.empty[FileKey]

  /** The files removed after the last look. */
  def removed: Seq[FileKey] = removedLast

  /** How many files could not be removed after the last look. */
  def failing: Int = notRemoved.failing

  /**
   * The files of `remove` removed, judged on one look's answer (`metas`, their stamps and what
   * the driver knows of each); and how long until the next may be removed, if it only waits for
   * `cleanup.after`.
   */
  def after(
      remove: Set[FileKey],
      metas: Seq[FileMeta],
      stampOf: FileKey => Option[FileStamp],
      known: FileKey => Option[KnownFile]): (Set[FileKey], Option[Long]) = cleanup match {
    case Some(c) if remove.nonEmpty =>
      val candidates = for {
        m <- metas if remove(m.key)
        k <- known(m.key)
        stamp <- stampOf(m.key)
      } yield {
        Cleanup.Candidate(m, stamp, k.floor, identity.ofKey(k, m) == FileIdentity.Same)
      }
      val nowMs = clock.millis()
      val newest = Cleanup.newestIn(metas, stampOf)
      val judged =
        c.removable(candidates, newest, metas.flatMap(_.copyOf).toSet, waitingSince, nowMs)
      waitingSince = judged.since
      notRemoved.keepOnly(candidates.map(c => Paths.get(c.meta.path)).toSet)
      val gone = judged.now.filter(c.remove(_, stat, nowMs, notRemoved.failed))
      gone.foreach(g => forget(Paths.get(g.meta.path).getParent))
      val removed = gone.map(_.meta.key).toSet
      removedLast = removed.toSeq
      removed -> judged.dueInMs
    case _ =>
      removedLast = Nil
      waitingSince = Map.empty
      notRemoved.keepOnly(Set.empty)
      Set.empty[FileKey] -> None
  }
}
