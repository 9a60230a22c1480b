package com.hx.spark.sql.connector.aof.files.scan

import java.io.IOException
import java.nio.file.{NoSuchFileException, Path}
import java.util.regex.Pattern

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.compression.Compression
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, FileStamp, NodeRequest}
import com.hx.spark.sql.connector.aof.files.listing.{
  FileListing, LookedDirectories, UnlistedDirectory
}

/**
 * What one look of a [[DirectoryScanner]] found: each file described once, by key, and every key
 * it looked at.
 */
private[files] final class DirectoryLook(
    request: NodeRequest,
    tracker: FileTracker,
    looked: LookedDirectories,
    kept: KeptDirectories,
    listing: FileListing,
    stat: Path => FileStamp) {
  // The files found but for those of the directories taken whole, by key.
  private val metas = mutable.ArrayBuffer.empty[FileMeta]
  private val seen = mutable.Set.empty[FileKey]
  // The directories taken as the last look answered them, whole: among thousands of quiet
  // files, a look says nothing of each ([[KeptDirectories.Dir]]).
  private val takenDirs = mutable.ArrayBuffer.empty[KeptDirectories.Dir]
  private val takenByPath = mutable.HashMap.empty[Path, KeptDirectories.Dir]
  // The directory being described: its files answered as kept, while every one of them is.
  private val keptHere = mutable.ArrayBuffer.empty[KeptDirectories.File]
  private var allKept = false
  // Each directory's entries as this look described them: listed again as they were, nothing
  // more is said of them.
  private val describedHere = mutable.Map.empty[Path, Seq[LookedDirectories.Entry]]
  // Each file's stamp as it was described, but for those of the directories taken whole.
  private val stamps = mutable.Map.empty[FileKey, FileStamp]
  private val lookedAtHere = mutable.Set.empty[FileKey]
  // Compressed files left unread for `ignore.older`: not reported.
  var leftOld = 0
  // Directories taken as the last look answered them.
  var taken = 0
  // Directories kept that a file of changed since: each file asked whether it still holds.
  var doubted = 0
  // The tracked files found: fewer than the request's, one is missing.
  var trackedFound = 0
  // The files found other than as kept by the tracker ([[KeptDirectories]]): the others are
  // tracked files that keep their heads, copies of none, whose stamps are settled.
  private val afreshFound = mutable.ArrayBuffer.empty[FileMeta]

  def found: Seq[FileMeta] = asKept ++ metas

  def afresh: Seq[FileMeta] = afreshFound.toList

  /**
   * The files found as kept: tracked files that keep their heads, copies of none, as before.
   * Asked once the look is done.
   */
  lazy val asKept: Seq[FileMeta] = takenDirs.flatMap(_.metas).toVector

  /** The stamp a file (by key) was found at. */
  def stampOf(key: FileKey): Option[FileStamp] =
    stamps.get(key).orElse(takenFile(key).map(_.stamp))

  /** Every file (by key) the look looked at. */
  def lookedAt: LookedKeys = new LookedKeys(takenDirs.toVector, lookedAtHere)

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
      lazy val asBefore = kept.of(listed).filter { d =>
        !kept.doubts(listed.dir) || { doubted += 1; d.files.forall(stillKept) }
      }
      if (!listed.fresh && describedHere.get(listed.dir).exists(_ eq listed.entries)) {
        reshaped // as this look found it already
      } else if (asBefore.nonEmpty) {
        val dir = asBefore.get
        takenDirs += dir
        takenByPath(listed.dir) = dir
        trackedFound += dir.files.size
        kept.found(listed.dir, listed.entries, Some(dir.files))
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
    !seenAlready(f.key) && request.knownByKey.get(f.key).exists(_ eq f.asked) &&
      tracker.keepsFrom(f.key, f.stamp, f.description)

  // Whether the look found the file (by key) already: a file renamed while listed may be in two.
  private def seenAlready(key: FileKey): Boolean = seen.contains(key) || takenFile(key).nonEmpty

  // The file (by key) of a directory taken whole: the one kept that holds it, if taken.
  private def takenFile(key: FileKey): Option[KeptDirectories.File] =
    kept.dirOf(key).flatMap(takenByPath.get).flatMap(_.byKey.get(key))

  /** One entry described, if wanted: the entry with its stamp, unless it went meanwhile. */
  private def describe(
      entry: LookedDirectories.Entry,
      wanted: (Option[Pattern], FileKey) => Boolean): Option[LookedDirectories.Entry] = {
    val LookedDirectories.Entry(path, readBy, known) = entry
    try {
      // The answer kept for a plain file unchanged since a look before, if it still holds.
      val answered = known
        .filter(s => s.regular && wanted(readBy, s.key))
        .flatMap(s => tracker.kept(path, s, request).map(s -> _))
      // A stamp of a look before only where nothing of the file is read.
      val stamp = answered
        .map(_._1)
        .orElse(known.filter(s =>
          !s.regular || !wanted(readBy, s.key) || tracker.knows(s, request)))
        .getOrElse(stat(path))
      val key = stamp.key
      if (!stamp.regular) {
        allKept = false
        readBy.foreach(listing.warnIfNotRead(path, _))
      } else if (!seenAlready(key) && wanted(readBy, key)) {
        lookedAtHere += key
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
  // tracked file that keeps its head (else whether it is a copy turns on every file's request).
  private def noteKept(key: FileKey, stamp: FileStamp, meta: FileMeta): Unit = if (allKept) {
    val asked = request.knownByKey.get(key).filter(_ => request.keepsTracked(meta))
    (asked, tracker.keptFrom(key)) match {
      case (Some(a), Some(d)) => keptHere += KeptDirectories.File(key, stamp, meta, a, d)
      case _ => allKept = false
    }
  }

  private def found(key: FileKey, stamp: FileStamp, meta: FileMeta): Unit = {
    seen += key
    stamps(key) = stamp
    metas += meta
  }

  // A file found afresh: a directory kept that holds it too is not taken whole after it.
  private def foundAfresh(key: FileKey, stamp: FileStamp, meta: FileMeta): Unit = {
    kept.changed(key)
    if (request.tracks(key)) trackedFound += 1
    afreshFound += meta
    found(key, stamp, meta)
  }

  /** A file looked at that no answer kept holds for: described, or left out as old. */
  private def described(path: Path, stamp: FileStamp): Unit = {
    val key = stamp.key
    val format = tracker.formatOf(path, stamp, None).filter(Compression.decompresses)
    if (format.exists(tracker.old.leftOut(path, stamp, _, request))) {
      seen += key
      kept.changed(key)
      leftOld += 1
    } else {
      // Seen only once described: one renamed away meanwhile is looked for again.
      tracker.describe(path, stamp, request).foreach(foundAfresh(key, stamp, _))
    }
  }
}
