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
    listing: FileListing,
    stat: Path => FileStamp) {
  private var metas = Vector.empty[FileMeta]
  private val seen = mutable.Set.empty[FileKey]
  // Each file's stamp as it was described.
  val stamps: mutable.Map[FileKey, FileStamp] = mutable.Map.empty
  val lookedAt: mutable.Set[FileKey] = mutable.Set.empty
  // Compressed files left unread for `ignore.older`: not reported.
  var leftOld = 0

  def found: Seq[FileMeta] = metas

  /**
   * Each directory's files described; those listed afresh kept with their stamps, for looks
   * that do not list their directory again. Whether a directory listed afresh holds other
   * files than before ([[LookedDirectories.found]]).
   *
   * @param wanted whether a file is looked at, given the regex the source reads it by (if any)
   *               and its key
   */
  def describe(
      listing: Seq[LookedDirectories.Listed],
      wanted: (Option[Pattern], FileKey) => Boolean): Boolean =
    listing.foldLeft(false) { (reshaped, listed) =>
      val stamped = listed.entries.flatMap(e => describe(e, wanted))
      (listed.fresh && looked.found(listed.dir, stamped)) || reshaped
    }

  /** One entry described, if wanted: the entry with its stamp, unless it went meanwhile. */
  private def describe(
      entry: LookedDirectories.Entry,
      wanted: (Option[Pattern], FileKey) => Boolean): Option[LookedDirectories.Entry] = {
    val LookedDirectories.Entry(path, readBy, known) = entry
    try {
      // The answer kept for a plain file unchanged since a look before, if it still holds.
      val kept = known
        .filter(s => s.regular && wanted(readBy, s.key))
        .flatMap(s => tracker.kept(path, s, question).map(s -> _))
      // A stamp of a look before only where nothing of the file is read.
      val stamp = kept
        .map(_._1)
        .orElse(known.filter(s =>
          !s.regular || !wanted(readBy, s.key) || tracker.knows(s, question)))
        .getOrElse(stat(path))
      val key = stamp.key
      if (!stamp.regular) readBy.foreach(listing.warnIfNotRead(path, _))
      else if (!seen.contains(key) && wanted(readBy, key)) {
        lookedAt += key
        kept.map(_._2).fold(described(path, stamp))(found(key, stamp, _))
      }
      Some(if (known.contains(stamp)) entry else entry.copy(stamp = Some(stamp)))
    } catch {
      case _: NoSuchFileException => None // renamed or removed since it was listed
      case e: IOException =>
        // Without its key nothing can be said of the file, not even that it is still there.
        throw new UnlistedDirectory(s"$path cannot be looked at (${FileListing.reason(e)})")
    }
  }

  private def found(key: FileKey, stamp: FileStamp, meta: FileMeta): Unit = {
    seen += key
    stamps(key) = stamp
    metas :+= meta
  }

  /** A file looked at that no answer kept holds for: described, or left out as old. */
  private def described(path: Path, stamp: FileStamp): Unit = {
    val key = stamp.key
    val format = tracker.formatOf(path, stamp, None).filter(Compression.decompresses)
    if (format.exists(tracker.old.leftOut(path, stamp, _, question))) {
      seen += key
      leftOld += 1
    } else {
      // Seen only once described: one renamed away meanwhile is looked for again.
      tracker.describe(path, stamp, question).foreach(found(key, stamp, _))
    }
  }
}
