package com.hx.spark.sql.connector.aof.files.listing

import java.nio.file.Path
import java.util.regex.Pattern

import scala.collection.mutable

/**
 * The files a source reads: in each directory one of its paths names, the files whose names
 * that path's regex matches, less those whose full path an `exclude` regex is found in. A file
 * two paths match is one file: files are told by their keys, not their names.
 *
 * Only what is listed is judged here: a tracked file renamed to a name no path matches, or that
 * is excluded, is still followed by its key until it is read to its end.
 */
final case class SourceFiles(paths: Seq[PathPattern], exclude: Seq[String] = Nil) {
  import SourceFiles.Directory

  @transient private lazy val excluded: Seq[Pattern] = exclude.map(Pattern.compile(_))

  /**
   * Each directory the paths name, once, with the regexes of the names read there; a literal
   * directory whether or not it exists ([[DirectoryGlob]] lists those of a pattern).
   *
   * @throws UnlistedDirectory when a directory on the way to a pattern's cannot be listed
   */
  def directories(): Seq[Directory] = {
    val named = paths.flatMap { p =>
      val dirs = if (p.glob.isPattern) p.glob.directories() else Seq(p.glob.root)
      dirs.map(d => (d, p.names, !p.glob.isPattern))
    }
    // Grouped in one pass, in the order named: a layout of thousands of directories is listed
    // at every trigger.
    val byDirectory = mutable.LinkedHashMap.empty[Path, mutable.ArrayBuffer[(Pattern, Boolean)]]
    named.foreach { case (dir, names, literal) =>
      byDirectory.getOrElseUpdate(dir, mutable.ArrayBuffer.empty) += names -> literal
    }
    byDirectory.map { case (dir, here) =>
      Directory(dir, here.map(_._1).toVector, here.exists(_._2))
    }.toVector
  }

  /** Where each path's literal part ends: a node without any of them has no files yet. */
  def roots: Seq[Path] = paths.map(_.glob.root).distinct

  /**
   * Whether a read may open `path`, named by a plan: only a file in a directory of the source's
   * paths, by its name without `..` (design §13). Its name need not match: a tracked file renamed
   * to a name no path matches is read to its end where it is (the plans that name such a file
   * come from the node's sealed answers, the checkpoint and the source's sealed state).
   */
  def mayOpen(path: Path): Boolean =
    path.normalize == path && path.getParent != null && isDirectory(path.getParent)

  /** Whether `dir` is one of the directories the paths name, by its name alone. */
  def isDirectory(dir: Path): Boolean = paths.exists(_.glob.names(dir))

  /** Whether `path` is left out by `exclude`, whatever its name. */
  def isExcluded(path: Path): Boolean = excluded.exists(_.matcher(path.toString).find())

  override def toString: String = paths.mkString(", ")
}

object SourceFiles {

  /** One path's files, none excluded. */
  def apply(directory: Path, fileNameRegex: String): SourceFiles =
    SourceFiles(Seq(PathPattern(directory.toString, fileNameRegex)))

  /**
   * A directory to list, and the regexes of the file names read in it.
   *
   * @param literal whether a path names it without wildcards: then it must be a directory
   *                when it exists, while one a pattern named may be gone by the time it is listed
   */
  final case class Directory(path: Path, names: Seq[Pattern], literal: Boolean) {

    /** The regex that makes `file`, listed here, one of the source's; none when it is not. */
    def readBy(file: Path, files: SourceFiles): Option[Pattern] =
      names
        .find(_.matcher(file.getFileName.toString).matches())
        .filterNot(_ => files.isExcluded(file))
  }
}
