package com.hx.spark.sql.connector.aof.files

import java.io.IOException
import java.nio.file.{
  AccessDeniedException,
  FileSystemException,
  Files,
  NoSuchFileException,
  NotDirectoryException,
  Path
}
import java.util.regex.Pattern

import scala.collection.JavaConverters._
import scala.collection.mutable

import org.slf4j.LoggerFactory

/**
 * The source's directories as listed: by the node's scanner, to answer, and by a read task, to
 * find a planned file renamed or copied since. Both list the same way: in the order of the
 * paths' bytes, a directory gone holding no files, one that cannot be listed failing the look
 * ([[UnlistedDirectory]]), and both list again as often when a file they look for is missing.
 *
 * @param listed each directory's listing, passed through: tests place a rotation there, where no
 *               real one can be made to land on demand
 */
final class FileListing(files: SourceFiles, listed: Seq[Path] => Seq[Path] = Predef.identity) {
  private val log = LoggerFactory.getLogger(getClass)
  // Directories the file-name regex matched, each warned about once.
  private val matchedDirectories = mutable.Set.empty[Path]

  /** Each entry of the source's directories, with the regex the source reads it by, if it does. */
  def entries(): Seq[(Path, Option[Pattern])] =
    files.directories().flatMap { d =>
      in(d.path, fromPattern = !d.literal).map(p => p -> d.readBy(p, files))
    }

  /**
   * The regular files of `first`, then those of the source's other directories, each listed only
   * when reached: a rotation renames and copies within a directory, or into another.
   */
  def filesFrom(first: Path): Iterator[Path] =
    (Iterator(first) ++ files.directories().iterator.map(_.path).filter(_ != first))
      .flatMap(in(_, fromPattern = true))
      .filter(Files.isRegularFile(_))

  /**
   * A directory's entries. One a pattern named may go before it is listed (a pod's, say): its
   * files went with it. The `path` directory itself must be a directory when it exists.
   */
  def in(dir: Path, fromPattern: Boolean): Seq[Path] = {
    val stream =
      try Files.list(dir)
      catch {
        case _: NoSuchFileException => return Seq.empty
        case _: NotDirectoryException if fromPattern => return Seq.empty
        case _: NotDirectoryException =>
          throw new UnlistedDirectory(s"$dir is not a directory")
        case e: IOException =>
          throw new UnlistedDirectory(s"$dir cannot be listed (${FileListing.reason(e)})")
      }
    // Paths compare by their bytes, without the String per comparison a sort by name costs.
    try listed(stream.sorted().iterator().asScala.toVector)
    finally stream.close()
  }

  /** A directory a path's regex matches is not read: said once, as the likely fix. */
  def warnIfDirectory(path: Path, regex: Pattern): Unit =
    if (Files.isDirectory(path) && matchedDirectories.add(path)) {
      log.warn(
        s"aof: $path matches the file-name regex '$regex' but is a directory, and " +
          s"directories are not read. To read the files in it, end 'path' with '$path/.*'.")
    }

  /**
   * Whether a path's directory is there (for a pattern, where its wildcards start): a node
   * without any has no files yet, not unknown ones.
   */
  def directoryExists: Boolean = files.roots.exists(Files.isDirectory(_))
}

object FileListing {

  /**
   * Listings of a directory while a file looked for is missing from it: a rotation renaming
   * files while they are listed can hide one (listed under a name it leaves before it is looked
   * at, and not yet under its next), and its renames take milliseconds.
   */
  val Listings: Int = 4

  /** What failed, in the system's words: "Permission denied", "Input/output error". */
  def reason(e: IOException): String = e match {
    case _: AccessDeniedException => "Permission denied"
    case f: FileSystemException if f.getReason != null => f.getReason
    case other => other.toString
  }
}
