package com.hx.spark.sql.connector.aof.files

import java.nio.file.Path

import scala.collection.mutable

/**
 * The directories whose every file a look answered as kept ([[FileTracker.kept]]), each a tracked
 * file: the next look that does not list such a directory again takes its answers as they were
 * while the driver asks the same of each file and the tracker still keeps what it answered from.
 * So a look among 20,000 quiet files costs a few lookups a file, not a description each.
 *
 * "The same" is the same object: the endpoint's exchange gives an unchanged file's question as
 * the object it gave before, and a file whose question or description changed is described again,
 * as the whole directory is then.
 */
private[files] final class KeptDirectories {
  import KeptDirectories.{Dir, File}

  private var kept = Map.empty[Path, Dir]
  private val next = mutable.HashMap.empty[Path, Dir]

  /** The files `listed` held at the last look, if it is not listed again and all were kept. */
  def of(listed: LookedDirectories.Listed): Option[Seq[File]] =
    kept.get(listed.dir).filter(d => !listed.fresh && (d.entries eq listed.entries)).map(_.files)

  /** What a look found in a directory: its entries as the next look takes them, its files. */
  def found(dir: Path, entries: Seq[LookedDirectories.Entry], files: Option[Seq[File]]): Unit =
    files match {
      case Some(f) => next(dir) = Dir(entries, f)
      case None => next -= dir // found again in the same look, not all kept now
    }

  /** A look's directories are all found: theirs are what the next look may take. */
  def looked(): Unit = {
    kept = next.toMap
    next.clear()
  }

  /** Nothing is taken as it was: a look failed. */
  def clear(): Unit = {
    kept = Map.empty
    next.clear()
  }
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

  private final case class Dir(entries: Seq[LookedDirectories.Entry], files: Seq[File])
}
