package com.hx.spark.sql.connector.aof.files

import java.nio.file.{Path, Paths}
import java.time.Clock
import java.util.regex.Pattern

import com.hx.spark.sql.connector.aof.files.LookedDirectories.{Every, Heard, Stamped, Which}

/**
 * A node's view of its directories (those its paths name, [[SourceFiles]]): the files whose
 * names match a path and are not excluded, plus tracked files renamed to names that are not (so
 * they are drained). It only ever looks inside its own directories; the driver's request can name
 * keys and positions, never paths.
 *
 * Each file is described by the [[FileTracker]], which keeps what it knows of every file between
 * looks, and described again only when its bytes or the driver's question change. A compressed
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
 * It does the looking. What it decides from a look is decided elsewhere: whether to look again
 * by the [[NodeQuestion]], whether a file is the same or a copy by the [[FileIdentity]] (and
 * [[ShortHeadCopies]] for files known by a short head), on the bytes [[IdentityEvidence]] read.
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
    records: Option[RecordRule] = None,
    listed: Seq[Path] => Seq[Path] = Predef.identity,
    batchCuts: Option[BatchCuts] = None,
    stat: Path => FileStamp = FileStamp.of,
    clock: Clock = Clock.systemUTC(),
    identity: FileIdentity = FileIdentity(checked = true),
    ignoreOlderMs: Option[Long] = None,
    ending: LineEnding = LineEnding.Default,
    cleanup: Option[Cleanup] = None,
    changes: Option[DirectoryChanges] = None,
    fileTimeMs: () => Long = () => System.currentTimeMillis()) {
  private val keptDirs = new KeptDirectories
  private val tracker = new FileTracker(
    sampleLength,
    records,
    batchCuts,
    stat,
    clock,
    identity,
    ignoreOlderMs,
    ending,
    keptDirs.changed)
  private val listing = new FileListing(files, listed)
  private val looked = new LookedDirectories(files, listing, fileTimeMs)
  private val shortHeads = new ShortHeadCopies(sampleLength, identity)
  private val newCopies = new NewFileCopies(identity)
  private val notRemoved = new RemovalWarnings(clock)
  @volatile private var ignoredByLastScan = 0
  @volatile private var removedLast = Seq.empty[FileKey]
  private var waitingSince = Map.empty[FileKey, Cleanup.Since]
  @volatile private var settlesIn: Option[Long] = None
  @volatile private var takenLast = 0
  @volatile private var doubtedLast = 0
  // The files the last scan looked at, whose keys the tracker keeps; none after one that failed.
  private var lastLookedAt = Option.empty[LookedKeys]
  private var lastQuestion = Option.empty[NodeQuestion]

  /** How many files the last scan left unread for `ignore.older`. */
  def ignored: Int = ignoredByLastScan

  /** The files `cleanup` removed in the last scan. */
  def removedByLastScan: Seq[FileKey] = removedLast

  /** How many files `cleanup` tried to remove in the last scan and could not. */
  def notRemovedByLastScan: Int = notRemoved.failing

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

  /**
   * Whether a path's directory is there (for a pattern, where its wildcards start): a node
   * without any has no files yet, not unknown ones.
   */
  def directoryExists: Boolean = listing.directoryExists

  /**
   * The files to report, given what the driver tracks on this node and what it retired (files no
   * longer tracked whose copy may still show up, by file id). Looked at twice when the first
   * look may have missed a copy ([[NodeQuestion.mayMissCopies]]), caught a file and its copy
   * both new, a rotation perhaps under way ([[NewFileCopies]]), or found a file gone when it came
   * to compare its bytes.
   *
   * With `cleanup`, the files of `remove` (read to their end in committed batches, the driver
   * says) that the look finds removable are removed, and not reported: gone.
   */
  def scan(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile] = Map.empty,
      remove: Set[FileKey] = Set.empty): Seq[FileMeta] =
    synchronized {
      val question = new NodeQuestion(known, retired, sampleLength, identity, lastQuestion)
      lastQuestion = Some(question)
      keptDirs.asked(question)
      // Forgotten until this scan ends: one that fails may have kept files no look reaches.
      val lookedBefore = lastLookedAt
      lastLookedAt = None
      val taken = changes.flatMap(_.take())
      // With retired files, every directory renamed in: the driver gives one up once an answer
      // found no copy of it, and a copy renamed into a directory whose event is still on its way
      // would be missed.
      val first = lookOrForget(
        question,
        if (retired.isEmpty) taken.fold[Which](Every)(Heard) else renamedIn(taken),
        taken)
      // The first look's answer only when it is not looked at again.
      val firstAnswer =
        Some(first).filterNot(l => question.mayMissCopies(l.afresh, l.trackedFound))
      val (last, metas) = firstAnswer.map(answer(_, question)) match {
        case Some((metas, false)) => (first, metas)
        case _ =>
          // A rotation under way: a copy may be where no watch told yet.
          val again = lookOrForget(question, renamedIn(taken), taken)
          (again, answer(again, question)._1)
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
      val (removed, cleanupDue) = cleaned(remove, metas, last, question)
      val nowMs = clock.millis()
      val settling = last.afresh.iterator
        .flatMap(m => last.stampOf(m.key))
        .map(tracker.untilSettled(_, nowMs))
        .filter(_ > 0L)
      settlesIn = (settling ++ cleanupDue.iterator)
        .reduceOption[Long](math.min)
        .map(_ + DirectoryScanner.TickMs)
      val joined = tracker.joined(metas, last.stampOf, question)
      val answered = WriteOrder.of(joined, last.stampOf, last.asKept.size)
      if (removed.isEmpty) answered else answered.filterNot(m => removed(m.key))
    }

  /**
   * The files of `remove` that `cleanup` removed, judged on one look; and how long until the next
   * may be removed, if it only waits for `cleanup.after`.
   */
  private def cleaned(
      remove: Set[FileKey],
      metas: Seq[FileMeta],
      look: DirectoryLook,
      question: NodeQuestion): (Set[FileKey], Option[Long]) = cleanup match {
    case Some(c) if remove.nonEmpty =>
      val candidates = for {
        m <- metas if remove(m.key)
        k <- question.knownByKey.get(m.key)
        stamp <- look.stampOf(m.key)
      } yield {
        Cleanup.Candidate(m, stamp, k.floor, identity.ofKey(k, m) == FileIdentity.Same)
      }
      val nowMs = clock.millis()
      val newest = Cleanup.newestIn(metas, look.stampOf)
      val judged =
        c.removable(candidates, newest, metas.flatMap(_.copyOf).toSet, waitingSince, nowMs)
      waitingSince = judged.since
      notRemoved.keepOnly(candidates.map(c => Paths.get(c.meta.path)).toSet)
      val gone = judged.now.filter(c.remove(_, stat, nowMs, notRemoved.failed))
      gone.foreach(g => looked.forget(Paths.get(g.meta.path).getParent))
      val removed = gone.map(_.meta.key).toSet
      removedLast = removed.toSeq
      removed -> judged.dueInMs
    case _ =>
      removedLast = Nil
      waitingSince = Map.empty
      notRemoved.keepOnly(Set.empty)
      Set.empty[FileKey] -> None
  }

  /**
   * A look's files, each with the tracked or new file it is a copy of, if any; and whether to look
   * again: one is a copy of a new file, or a file the look found went before its bytes could be
   * compared (a rotation's compressor done and its original deleted, amid the look).
   */
  private def answer(look: DirectoryLook, question: NodeQuestion): (Seq[FileMeta], Boolean) = {
    // Only for files that may be copies: most files of most looks are tracked.
    lazy val byKey = look.found.map(m => m.key -> m).toMap
    val evidence = new IdentityEvidence(sampleLength, tracker.compressed)
    try {
      // The same answer, the same object: comparing it with the last answer's ends there. The
      // files found as kept are tracked files that keep their heads: copies of none.
      val metas = look.afresh.map { m =>
        val copyOf = shortHeads.copyOf(m, question, byKey, evidence)
        if (copyOf == m.copyOf) m else m.copy(copyOf = copyOf)
      }
      val unsettled = (key: FileKey) => look.stampOf(key).exists(!tracker.settled(_))
      val found = newCopies.of(metas, question, unsettled, tracker.compressed, evidence)
      val withCopies = metas
        .filterNot(m => found.heldBack(m.key))
        .map(m => found.copyOf.get(m.key).fold(m)(o => m.copy(copyOf = Some(o))))
      (look.asKept ++ withCopies, found.copyOf.nonEmpty || evidence.missed)
    } finally evidence.close()
  }

  /** A look; one that fails has the next list every directory again. */
  private def lookOrForget(
      question: NodeQuestion,
      which: Which,
      taken: Option[Set[Path]]): DirectoryLook =
    try look(question, which, taken)
    catch {
      case e: Exception =>
        looked.clear()
        keptDirs.clear()
        throw e
    }

  /**
   * One look: the files of the directories `which` names described, with the others as last
   * found, unless a file was made, went or was renamed in one heard (then every directory a name
   * changed in is listed again); then those listed again while a tracked file is missing
   * ([[NodeQuestion.missesTracked]]), for the tracked files only: a file renamed into another
   * directory is missing from its own before the watch may have told of the other.
   */
  private def look(
      question: NodeQuestion,
      which: Which,
      taken: Option[Set[Path]]): DirectoryLook = {
    val look = new DirectoryLook(question, tracker, looked, keptDirs, listing, stat)
    val wanted = (readBy: Option[Pattern], key: FileKey) => readBy.nonEmpty || question.tracks(key)
    if (look.describe(looked.listed(which), wanted) && which.isInstanceOf[Heard]) {
      this.look(question, renamedIn(taken), taken)
    } else {
      var listings = 1
      while (listings < FileListing.Listings && question.missesTracked(look.trackedFound)) {
        listings += 1
        look.describe(looked.listed(renamedIn(taken)), (_, key) => question.tracks(key))
      }
      look.done()
      look
    }
  }

  /**
   * Every directory whose names changed by now, with those heard since `taken` (what a watch
   * heard as the scan began) and the write in them that no stamp shows; every directory when
   * the scan began whole or events were lost since.
   */
  private def renamedIn(taken: Option[Set[Path]]): Which =
    (for (t <- taken; c <- changes; since <- c.heardSince)
      yield t ++ since).fold[Which](Every)(Stamped)
}

object DirectoryScanner {

  /** How much coarser than a millisecond file times may tick. */
  private val TickMs = 20L
}
