package com.hx.spark.sql.connector.aof.files

import java.nio.file.Path
import java.util.regex.Pattern

import scala.collection.mutable

/**
 * What the looks found in each directory: its entries, each with the regex the source reads it
 * by and its stamp. A look told which directories changed ([[DirectoryChanges]]) lists those
 * again and takes the others from here; a whole look lists every one. A directory the watch
 * names that is not one of those listed (one on the way to them) may make others appear or go:
 * then the look is whole.
 */
private[files] final class LookedDirectories(files: SourceFiles, listing: FileListing) {
  import LookedDirectories.{Entry, Listed}

  private var directories = Option.empty[Seq[SourceFiles.Directory]]
  private val entries = mutable.Map.empty[Path, Seq[Entry]]
  @volatile private var wholeListings = 0L

  /** The listings of every directory so far: a whole look lists them once, or twice. */
  def whole: Long = wholeListings

  /**
   * Each directory's entries: listed again (without stamps) where `changed` says, or all when it
   * is none; the others as last found.
   *
   * @throws UnlistedDirectory when a directory cannot be listed
   */
  def listed(changed: Option[Set[Path]]): Seq[Listed] = {
    val known = directories.map(_.map(_.path).toSet)
    val again = for (c <- changed; k <- known if c.subsetOf(k)) yield c
    val dirs = if (again.isEmpty) everyDirectory() else directories.get
    dirs.map { d =>
      entries.get(d.path).filterNot(_ => again.forall(_(d.path))) match {
        case Some(found) => Listed(d.path, found, fresh = false)
        case None =>
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

  /** `dir` is listed again at the next look: its files were removed by the source itself. */
  def forget(dir: Path): Unit = entries -= dir

  /** Every directory is listed again at the next look: the last one failed. */
  def clear(): Unit = {
    directories = None
    entries.clear()
  }

  private def everyDirectory(): Seq[SourceFiles.Directory] = {
    val dirs = files.directories()
    wholeListings += 1
    clear()
    directories = Some(dirs)
    dirs
  }
}

private[files] object LookedDirectories {

  /** A directory's entry: its regex, if the source reads it by one; its stamp once statted. */
  final case class Entry(path: Path, readBy: Option[Pattern], stamp: Option[FileStamp])

  /** A directory's entries, and whether they were listed by this look. */
  final case class Listed(dir: Path, entries: Seq[Entry], fresh: Boolean)
}
