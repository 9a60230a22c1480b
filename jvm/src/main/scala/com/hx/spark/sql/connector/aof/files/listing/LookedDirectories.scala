package com.hx.spark.sql.connector.aof.files.listing

import java.io.IOException
import java.nio.file.Path
import java.util.regex.Pattern

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.FileStamp

/**
 * What the looks found in each directory: its entries, each with the regex the source reads it
 * by and its stamp. A look told which directories changed ([[DirectoryChanges]]) lists those
 * again and takes the others from here; a whole look lists every one. A directory the watch
 * names that is not one of those listed (one on the way to them) may make others appear or go:
 * then the look is whole.
 *
 * A look that must see every file made, renamed or removed by now, where an event may still be
 * on its way (a tracked file missing, a copy perhaps missed: [[LookedDirectories.Stamped]]),
 * lists again only the directories whose own stamp changed since they were listed: a name made,
 * renamed or removed in a directory changes its times at once, in the same call. A directory
 * listed while its times were recent is listed again, as one whose stamp changed: a file time
 * ticks coarsely, and a change in the same tick leaves the stamp as it was.
 *
 * @param now the time a directory's stamp is compared with: the system's, which the filesystem's
 *            times are taken from (tests give a later one for directories long unchanged)
 */
private[files] final class LookedDirectories(
    files: SourceFiles,
    listing: FileListing,
    now: () => Long = () => System.currentTimeMillis()) {
  import LookedDirectories.{Entry, Heard, Listed, SettledMs, Stamped, Which}

  private var directories = Option.empty[Seq[SourceFiles.Directory]]
  private val entries = mutable.Map.empty[Path, Seq[Entry]]
  // Each directory's stamp as it was before its last listing, where that stamp tells later ones.
  private val settled = mutable.Map.empty[Path, FileStamp]
  @volatile private var wholeListings = 0L

  /** The listings of every directory so far: a whole look lists them once, or twice. */
  def whole: Long = wholeListings

  /**
   * Each directory's entries: listed again (without stamps) where `which` says, the others as
   * last found.
   *
   * @throws UnlistedDirectory when a directory cannot be listed
   */
  def listed(which: Which): Seq[Listed] = {
    val known = directories.map(_.map(_.path).toSet)
    val (dirs, again) = which match {
      case Heard(heard) if known.exists(heard.subsetOf) => (directories.get, heard)
      case Stamped(heard) if directories.nonEmpty =>
        val dirs = files.directories()
        directories = Some(dirs)
        (known.get -- dirs.map(_.path)).foreach(forget)
        (dirs, heard ++ unstamped(dirs.filterNot(d => heard(d.path))))
      case _ => (everyDirectory(), Set.empty[Path])
    }
    dirs.map { d =>
      entries.get(d.path).filterNot(_ => again(d.path)) match {
        case Some(found) => Listed(d.path, found, fresh = false)
        case None =>
          settled -= d.path
          stampOf(d.path).filter(told).foreach(settled(d.path) = _)
          val here = listing.in(d.path, fromPattern = !d.literal)
          Listed(d.path, here.map(p => Entry(p, d.readBy(p, files), None)), fresh = true)
      }
    }
  }

  /**
   * What a look found in `dir`, listed afresh: each entry it could stat. Whether its files are
   * others than those found there before (one made, gone, or renamed): a rotation's steps land in
   * several directories, and a look that took some as they were would join steps no whole look
   * sees together.
   */
  def found(dir: Path, stamped: Seq[Entry]): Boolean = {
    def files(es: Seq[Entry]) = es.map(e => e.path -> e.stamp.map(_.key)).toSet
    val before = entries.put(dir, stamped)
    before.exists(b => files(b) != files(stamped))
  }

  /** The regular files found that no `path` reads, or that `exclude` leaves out. */
  def unread: Iterator[Path] =
    entries.valuesIterator.flatten.collect {
      case Entry(path, None, Some(stamp)) if stamp.regular => path
    }

  /** `dir` is listed again at the next look: its files were removed by the source itself. */
  def forget(dir: Path): Unit = {
    entries -= dir
    settled -= dir
  }

  /** Every directory is listed again at the next look: the last one failed. */
  def clear(): Unit = {
    directories = None
    entries.clear()
    settled.clear()
  }

  // The directories whose stamp cannot tell that they are as listed.
  private def unstamped(dirs: Seq[SourceFiles.Directory]): Set[Path] =
    dirs.iterator.map(_.path).filterNot(d => settled.get(d).exists(unchanged(d, _))).toSet

  private def unchanged(dir: Path, before: FileStamp): Boolean = stampOf(dir).contains(before)

  // Whether a later change shows in the stamp: each name made, renamed or removed sets the
  // directory's change time to its tick, and nothing sets it back (a modified time can be).
  private def told(stamp: FileStamp): Boolean =
    now() - stamp.changedNanos / 1000000L > SettledMs

  // Through a link: a directory named by a link changes where the link leads.
  private def stampOf(dir: Path): Option[FileStamp] =
    try Some(FileStamp.ofTarget(dir))
    catch { case _: IOException => None }

  private def everyDirectory(): Seq[SourceFiles.Directory] = {
    val dirs = files.directories()
    wholeListings += 1
    clear()
    directories = Some(dirs)
    dirs
  }
}

private[files] object LookedDirectories {

  /**
   * How long ago a directory must have last changed for its stamp to tell a later change: a
   * file time ticks with the kernel's coarse clock, and by a second or two on some filesystems.
   */
  val SettledMs: Long = 3000L

  /** Which directories a look lists again; the others are taken as last found. */
  sealed trait Which

  /** Every directory, each listed again: a whole look. */
  case object Every extends Which

  /** Those a watch heard change. */
  final case class Heard(dirs: Set[Path]) extends Which

  /**
   * Those a watch heard change, and those whose stamp says a name in them changed since they
   * were listed (or cannot say): every file made, renamed or removed by now is seen.
   */
  final case class Stamped(heard: Set[Path]) extends Which

  /** A directory's entry: its regex, if the source reads it by one; its stamp once statted. */
  final case class Entry(path: Path, readBy: Option[Pattern], stamp: Option[FileStamp])

  /** A directory's entries, and whether they were listed by this look. */
  final case class Listed(dir: Path, entries: Seq[Entry], fresh: Boolean)
}
