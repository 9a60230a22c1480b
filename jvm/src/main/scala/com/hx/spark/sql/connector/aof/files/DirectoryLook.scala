package com.hx.spark.sql.connector.aof.files

import java.io.IOException
import java.nio.file.{NoSuchFileException, Path}
import java.util.regex.Pattern

import scala.collection.mutable

/**
 * What one look of a [[DirectoryScanner]] found: each file described once, by key, and every key
 * it looked at.
 */
private[files] final class DirectoryLook(
    question: NodeQuestion,
    tracker: FileTracker,
    looked: LookedDirectories,
    kept: KeptDirectories,
    listing: FileListing,
    stat: Path => FileStamp) {
  private var metas = Vector.empty[FileMeta]
  private val seen = mutable.Set.empty[FileKey]
  // The directory being described: its files answered as kept, while every one of them is.
  private val keptHere = mutable.ArrayBuffer.empty[KeptDirectories.File]
  private var allKept = false
  // Each directory's entries as this look described them: listed again as they were, nothing
  // more is said of them.
  private val describedHere = mutable.Map.empty[Path, Seq[LookedDirectories.Entry]]
  // Each file's stamp as it was described.
  val stamps: mutable.Map[FileKey, FileStamp] = mutable.Map.empty
  val lookedAt: mutable.Set[FileKey] = mutable.Set.empty
  // Compressed files left unread for `ignore.older`: not reported.
  var leftOld = 0
  // Directories taken as the last look answered them.
  var taken = 0
  // The tracked files found: fewer than the question's, one is missing.
  var trackedFound = 0
  // The files found other than as kept by the tracker ([[KeptDirectories]]): the others are
  // tracked files that keep their heads, copies of none, whose stamps are settled.
  private val afreshFound = mutable.ArrayBuffer.empty[FileMeta]
  // The files of the directories taken as kept.
  private var keptFound = Vector.empty[FileMeta]

  def found: Seq[FileMeta] = metas

  def afresh: Seq[FileMeta] = afreshFound.toList

  /** The files found as kept: tracked files that keep their heads, copies of none, as before. */
  def asKept: Seq[FileMeta] = keptFound

  /**
   * Each directory's files described, or taken as the last look answered them where it is not
   * listed again and each file's answer still holds ([[KeptDirectories]]); those listed afresh
   * kept with their stamps, for looks that do not list their directory again. Whether a
   * directory listed afresh holds other files than before ([[LookedDirectories.found]]). A
   * directory this look described already, given again as it was, is passed over.
   *
   * @param wanted whether a file is looked at, given the regex the source reads it by (if any)
   *               and its key
   */
  def describe(
      listing: Seq[LookedDirectories.Listed],
      wanted: (Option[Pattern], FileKey) => Boolean): Boolean =
    listing.foldLeft(false) { (reshaped, listed) =>
      lazy val asBefore =
        kept.of(listed).filter(fs => !kept.doubts(listed.dir) || fs.forall(stillKept))
      if (!listed.fresh && describedHere.get(listed.dir).exists(_ eq listed.entries)) {
        reshaped // as this look found it already
      } else if (asBefore.nonEmpty) {
        asBefore.get.foreach { f =>
          lookedAt += f.key
          found(f.key, f.stamp, f.meta)
          keptFound :+= f.meta
        }
        trackedFound += asBefore.get.size
        kept.found(listed.dir, listed.entries, asBefore)
        describedHere(listed.dir) = listed.entries
        taken += 1
        reshaped
      } else {
        keptHere.clear()
        allKept = !listed.fresh
        val stamped = listed.entries.flatMap(e => describe(e, wanted))
        kept.found(listed.dir, listed.entries, Some(keptHere.toVector).filter(_ => allKept))
        describedHere(listed.dir) = if (listed.fresh) stamped else listed.entries
        (listed.fresh && looked.found(listed.dir, stamped)) || reshaped
      }
    }

  /** The look is over: its directories kept as answered are what the next look may take. */
  def done(): Unit = kept.looked()

  // Whether a file the last look answered as kept is answered so again, as it was.
  private def stillKept(f: KeptDirectories.File): Boolean =
    !seen.contains(f.key) && question.knownByKey.get(f.key).exists(_ eq f.asked) &&
      tracker.keepsFrom(f.key, f.stamp, f.description)

  /** One entry described, if wanted: the entry with its stamp, unless it went meanwhile. */
  private def describe(
      entry: LookedDirectories.Entry,
      wanted: (Option[Pattern], FileKey) => Boolean): Option[LookedDirectories.Entry] = {
    val LookedDirectories.Entry(path, readBy, known) = entry
    try {
      // The answer kept for a plain file unchanged since a look before, if it still holds.
      val answered = known
        .filter(s => s.regular && wanted(readBy, s.key))
        .flatMap(s => tracker.kept(path, s, question).map(s -> _))
      // A stamp of a look before only where nothing of the file is read.
      val stamp = answered
        .map(_._1)
        .orElse(known.filter(s =>
          !s.regular || !wanted(readBy, s.key) || tracker.knows(s, question)))
        .getOrElse(stat(path))
      val key = stamp.key
      if (!stamp.regular) {
        allKept = false
        readBy.foreach(listing.warnIfNotRead(path, _))
      } else if (!seen.contains(key) && wanted(readBy, key)) {
        lookedAt += key
        answered.map(_._2) match {
          case Some(meta) =>
            foundAfresh(key, stamp, meta)
            noteKept(key, stamp, meta)
          case None =>
            allKept = false
            described(path, stamp)
        }
      } else allKept = false
      Some(if (known.contains(stamp)) entry else entry.copy(stamp = Some(stamp)))
    } catch {
      case _: NoSuchFileException => None // renamed or removed since it was listed
      case e: IOException =>
        // Without its key nothing can be said of the file, not even that it is still there.
        throw new UnlistedDirectory(s"$path cannot be looked at (${FileListing.reason(e)})")
    }
  }

  // A file answered as kept: the directory may be taken as it is by the next look while it is a
  // tracked file that keeps its head (else whether it is a copy turns on every file's question).
  private def noteKept(key: FileKey, stamp: FileStamp, meta: FileMeta): Unit = if (allKept) {
    val asked = question.knownByKey.get(key).filter(_ => question.keepsTracked(meta))
    (asked, tracker.keptFrom(key)) match {
      case (Some(a), Some(d)) => keptHere += KeptDirectories.File(key, stamp, meta, a, d)
      case _ => allKept = false
    }
  }

  private def found(key: FileKey, stamp: FileStamp, meta: FileMeta): Unit = {
    seen += key
    stamps(key) = stamp
    metas :+= meta
  }

  // A file found afresh: a directory kept that holds it too is not taken whole after it.
  private def foundAfresh(key: FileKey, stamp: FileStamp, meta: FileMeta): Unit = {
    kept.changed(key)
    if (question.tracks(key)) trackedFound += 1
    afreshFound += meta
    found(key, stamp, meta)
  }

  /** A file looked at that no answer kept holds for: described, or left out as old. */
  private def described(path: Path, stamp: FileStamp): Unit = {
    val key = stamp.key
    val format = tracker.formatOf(path, stamp, None).filter(Compression.decompresses)
    if (format.exists(tracker.old.leftOut(path, stamp, _, question))) {
      seen += key
      kept.changed(key)
      leftOld += 1
    } else {
      // Seen only once described: one renamed away meanwhile is looked for again.
      tracker.describe(path, stamp, question).foreach(foundAfresh(key, stamp, _))
    }
  }
}
