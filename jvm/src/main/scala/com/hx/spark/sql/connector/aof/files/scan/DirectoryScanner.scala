package com.hx.spark.sql.connector.aof.files.scan

import java.nio.file.Path
import java.time.Clock

import com.hx.spark.sql.connector.aof.files.cleanup.{Cleanup, CleanupRun}
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, FileStamp, KnownFile, NodeRequest
}
import com.hx.spark.sql.connector.aof.files.lines.LineEnding
import com.hx.spark.sql.connector.aof.files.listing.{
  DirectoryChanges, FileListing, LookedDirectories, SourceFiles
}
import com.hx.spark.sql.connector.aof.files.records.{BatchCuts, RecordRule}

/**
 * A node's view of its directories (those its paths name, [[SourceFiles]]): the files whose
 * names match a path and are not excluded, plus tracked files renamed to names that are not (so
 * they are drained). It only ever looks inside its own directories; the driver's request can name
 * keys and positions, never paths.
 *
 * Each file is described by the [[FileTracker]], which keeps what it knows of every file between
 * looks, and described again only when its bytes or the driver's request change. A compressed
 * file is looked at as the bytes it decompresses to: a rotation's `compress` may leave the unread
 * end of a tracked file only there. The directories are listed by the [[FileListing]], as a read
 * task lists them; told which changed since the last look (`changes`), a look lists and stats
 * only those, and takes the others as the looks before found them ([[LookedDirectories]]).
 *
 * What it cannot see is never reported as gone: a file it cannot read is reported unreadable (the
 * driver keeps its position), and a directory it cannot list fails the whole look with
 * [[UnlistedDirectory]] (the driver keeps the host's offsets). Either would otherwise be read
 * again from its start once visible, under a new id. A directory that does not exist holds no
 * files.
 *
 * It runs a scan. Which directories a look lists is [[DirectoryLooks]]' to say, whether to look
 * again the [[NodeRequest]]'s, what a file is a copy of [[LookCopies]]', what `cleanup` removes
 * [[CleanupRun]]'s.
 *
 * @param listed each listing, passed through before its files are looked at: tests place a
 *               rotation there, where no real one can be made to land on demand
 * @param stat   how a file's key, size and times are read: tests give a file another's freed
 *               inode, which no filesystem does on demand
 * @param clock  what a file's times are compared with: how long it has been quiet decides
 *               whether its answer is kept and whether its last record is flushed
 * @param identity how a file is told from what was known of it (`md5.check.enabled`)
 * @param ignoreOlderMs how long a file not tracked must have gone unmodified to be left unread
 *               (`ignore.older`, [[OldFiles]])
 * @param ending how the files' bytes are lines (`encoding`, `line.separator`)
 * @param cleanup what becomes of a file read to its end and committed (`cleanup`)
 * @param changes the directories a watch heard change since the last look; without it, every
 *                look lists every directory and stats every file
 * @param fileTimeMs the time file times are taken from, which a directory's are compared with:
 *                   the system's (tests give a later one for directories long unchanged)
 */
final class DirectoryScanner(
    files: SourceFiles,
    sampleLength: Int,
    grouping: Option[RecordRule] = None,
    listed: Seq[Path] => Seq[Path] = Predef.identity,
    batchCuts: Option[BatchCuts] = None,
    stat: Path => FileStamp = FileStamp.of,
    clock: Clock = Clock.systemUTC(),
    identity: FileIdentity = FileIdentity(checked = true),
    ignoreOlderMs: Option[Long] = None,
    ending: LineEnding = LineEnding.Default,
    cleanup: Option[Cleanup] = None,
    changes: Option[DirectoryChanges] = None,
    fileTimeMs: () => Long = () => System.currentTimeMillis())
    extends NodeScanner {
  private val keptDirs = new KeptDirectories
  private val tracker = new FileTracker(
    sampleLength,
    grouping,
    batchCuts,
    stat,
    clock,
    identity,
    ignoreOlderMs,
    ending,
    keptDirs.changed)
  private val listing = new FileListing(files, listed)
  private val looked = new LookedDirectories(files, listing, fileTimeMs)
  private val copies = new LookCopies(sampleLength, identity, tracker)
  private val looks = new DirectoryLooks(tracker, looked, keptDirs, listing, stat, changes)
  private val cleanupRun = new CleanupRun(cleanup, identity, stat, clock, looked.forget(_))
  // How much coarser than a millisecond file times may tick.
  private val TickMs = 20L
  @volatile private var ignoredByLastScan = 0
  @volatile private var settlesIn: Option[Long] = None
  @volatile private var takenLast = 0
  @volatile private var doubtedLast = 0
  // The files the last scan looked at, whose keys the tracker keeps; none after one that failed.
  private var lastLookedAt = Option.empty[LookedKeys]
  private var lastRequest = Option.empty[NodeRequest]

  /** How many files the last scan left unread for `ignore.older`. */
  def ignored: Int = ignoredByLastScan

  /** The files `cleanup` removed in the last scan. */
  def removedByLastScan: Seq[FileKey] = cleanupRun.removed

  /** How many files `cleanup` tried to remove in the last scan and could not. */
  def notRemovedByLastScan: Int = cleanupRun.failing

  /**
   * How long until the soonest file of the last scan is quiet enough that a look would say more
   * of it (its last record flushed, a copy told from a file written) or remove it (`cleanup`),
   * if none is written again. A little longer than the stamps say: file times tick coarsely.
   */
  def nextSettlingMs: Option[Long] = settlesIn

  /** The listings of every directory so far ([[DirectoryChanges]] tells when one is needed). */
  def wholeListings: Long = looked.whole

  // Compressed files decompressed so far: each costs a pass over all a file holds.
  private[files] def decompressions: Long = tracker.decompressions

  // The directories the last scan took as the look before answered them ([[KeptDirectories]]).
  private[files] def takenByLastScan: Int = takenLast

  // The directories kept that the last scan asked file by file: a file of each changed.
  private[files] def doubtedByLastScan: Int = doubtedLast

  // The files whose answers are kept: the suites see what is forgotten.
  private[files] def remembered: Int = tracker.remembered

  /** The regular files the looks found that the source does not read ([[UnmatchedCopies]]). */
  def unreadFiles: Iterator[Path] = looked.unread

  /** Whether a path's directory (where its wildcards start) is there: else no files, yet. */
  def directoryExists: Boolean = listing.directoryExists

  /**
   * The files to report, given what the driver tracks on this node and what it retired (files no
   * longer tracked whose copy may still show up, by file id). Looked at twice when the first
   * look may have missed a copy ([[NodeRequest.mayMissCopies]]), caught a file and its copy
   * both new, a rotation perhaps under way ([[NewFileCopies]]), or found a file gone when it came
   * to compare its bytes.
   *
   * With `cleanup`, the files of `remove` (read to their end in committed batches, the driver
   * says) that the look finds removable are removed, and not reported: gone.
   */
  override def scan(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Set[FileKey]): Seq[FileMeta] =
    synchronized {
      val request = new NodeRequest(known, retired, sampleLength, identity, lastRequest)
      lastRequest = Some(request)
      keptDirs.asked(request)
      // Forgotten until this scan ends: one that fails may have kept files no look reaches.
      val lookedBefore = lastLookedAt
      lastLookedAt = None
      val taken = looks.heard()
      val first = looks.first(request, taken, retired.nonEmpty)
      // The first look's answer only when it is not looked at again.
      val firstAnswer =
        Some(first).filterNot(l => request.mayMissCopies(l.afresh, l.trackedFound))
      val (last, metas) = firstAnswer.map(copies.answer(_, request)) match {
        case Some((metas, false)) => (first, metas)
        case _ =>
          val again = looks.again(request, taken)
          (again, copies.answer(again, request)._1)
      }
      val lookedAt = if (first eq last) first.lookedAt else first.lookedAt ++ last.lookedAt
      // What the last scan looked at and this one did not: the tracker holds no other file.
      lookedBefore.flatMap(_.goneBy(lookedAt)) match {
        case Some(gone) => if (gone.nonEmpty) tracker.keepOnly(k => !gone(k))
        case None => tracker.keepOnly(lookedAt.all.contains)
      }
      lastLookedAt = Some(lookedAt)
      ignoredByLastScan = last.leftOld + metas.count(_.ignored)
      takenLast = first.taken + (if (first eq last) 0 else last.taken)
      doubtedLast = first.doubted + (if (first eq last) 0 else last.doubted)
      val (removed, cleanupDue) =
        cleanupRun.after(remove, metas, last.stampOf, request.knownByKey.get)
      settlesIn = settlingMs(last, cleanupDue)
      val joined = tracker.joined(metas, last.stampOf, request)
      val answered = WriteOrder.of(joined, last.stampOf, last.asKept.size)
      if (removed.isEmpty) answered else answered.filterNot(m => removed(m.key))
    }

  /** When the soonest file of a look settles, or `cleanup` may remove one, a tick later. */
  private def settlingMs(look: DirectoryLook, cleanupDue: Option[Long]): Option[Long] = {
    val nowMs = clock.millis()
    val settling = look.afresh.iterator
      .flatMap(m => look.stampOf(m.key))
      .map(tracker.untilSettled(_, nowMs))
      .filter(_ > 0L)
    (settling ++ cleanupDue.iterator).reduceOption[Long](math.min).map(_ + TickMs)
  }
}
