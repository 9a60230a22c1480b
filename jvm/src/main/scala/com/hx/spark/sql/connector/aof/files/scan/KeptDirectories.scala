package com.hx.spark.sql.connector.aof.files.scan

import java.nio.file.Path

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.{
  FileKey, FileMeta, FileStamp, KnownFile, NodeRequest
}
import com.hx.spark.sql.connector.aof.files.listing.LookedDirectories

/**
 * The directories whose every file a look answered as kept ([[FileTracker.kept]]), each a tracked
 * file: the next look that does not list such a directory again takes its answers as they were
 * while the driver asks the same of each file and the tracker still keeps what it answered from.
 *
 * "The same" is the same object: the endpoint's exchange gives an unchanged file's request as
 * the object it gave before, and a file whose request or description changed is described again,
 * as the whole directory is then. Which those are is told as they change ([[changed]]): a
 * directory none of whose files was told of is taken whole, without a request to each file; so
 * a look among 20,000 quiet files costs a few steps a directory, not a description a file.
 */
private[files] final class KeptDirectories {
  import KeptDirectories.{Dir, File}

  private var kept = Map.empty[Path, Dir]
  private val next = mutable.HashMap.empty[Path, Dir]
  // The directory of each file kept, to doubt it when the file changes.
  private val dirs = mutable.HashMap.empty[FileKey, Path]
  // Directories kept, one file of which changed since: each file is asked whether it still holds.
  private val doubted = mutable.Set.empty[Path]

  /** The files `listed` held at the last look, if it is not listed again and all were kept. */
  def of(listed: LookedDirectories.Listed): Option[Dir] =
    kept.get(listed.dir).filter(d => !listed.fresh && (d.entries eq listed.entries))

  /**
   * The directory kept that holds the file (by key), if any: one at most, as a look finds a file
   * once. Its files may no longer hold it (the index keeps keys no longer kept for a while).
   */
  def dirOf(key: FileKey): Option[Path] = dirs.get(key)

  /** Whether a file of the directory changed since it was kept: its files are asked each. */
  def doubts(dir: Path): Boolean = doubted(dir)

  /** The file (by key) may no longer be answered as it was kept: its directory is doubted. */
  def changed(key: FileKey): Unit = dirOf(key).foreach(doubted += _)

  /**
   * A scan asks `request`: a directory a file of which it asks otherwise than the last scan did
   * is doubted (none is kept before the first).
   */
  def asked(request: NodeRequest): Unit = request.changed.foreach(_.foreach(changed))

  /** What a look found in a directory: its entries as the next look takes them, its files. */
  def found(dir: Path, entries: Seq[LookedDirectories.Entry], files: Option[Seq[File]]): Unit =
    files match {
      case Some(f) =>
        val before = next.get(dir).orElse(kept.get(dir))
        if (!before.exists(_.files eq f)) index(dir, f)
        // The same object while its entries and files are: what it makes once is made once.
        next(dir) = before.filter(d => (d.entries eq entries) && (d.files eq f)).getOrElse {
          new Dir(entries, f)
        }
        doubted -= dir // its files were just found as kept
      case None => next -= dir // found again in the same look, not all kept now
    }

  /** A look's directories are all found: theirs are what the next look may take. */
  def looked(): Unit = {
    kept = next.toMap
    next.clear()
    doubted --= doubted.filterNot(kept.contains).toList
    // Keys of files no longer kept are left in the index until it is twice what is kept: one
    // only doubts a directory for nothing.
    val files = kept.valuesIterator.map(_.files.size).sum
    if (dirs.size > 2 * files + 1000) {
      dirs.clear()
      kept.foreach { case (dir, d) => index(dir, d.files) }
    }
  }

  /** Nothing is taken as it was: a look failed. */
  def clear(): Unit = {
    kept = Map.empty
    next.clear()
    dirs.clear()
    doubted.clear()
  }

  // A file kept in another directory before (renamed there) has that one doubted.
  private def index(dir: Path, files: Seq[File]): Unit =
    files.foreach(f => dirs.put(f.key, dir).filter(_ != dir).foreach(doubted += _))
}

private[files] object KeptDirectories {

  /**
   * A file answered as kept: its answer, at its stamp, to `asked`, from the tracker's
   * `description`.
   */
  final case class File(
      key: FileKey,
      stamp: FileStamp,
      meta: FileMeta,
      asked: KnownFile,
      description: FileDescription)

  /**
   * A directory whose files were all answered as kept, as the next look may take it whole: its
   * entries, its files, and what a look taking it asks of them, made once.
   */
  final class Dir(val entries: Seq[LookedDirectories.Entry], val files: Seq[File]) {
    lazy val metas: Vector[FileMeta] = files.iterator.map(_.meta).toVector
    lazy val byKey: Map[FileKey, File] = files.iterator.map(f => f.key -> f).toMap
  }
}
