package com.hx.spark.sql.connector.aof.files.listing

import java.io.IOException
import java.nio.file.{
  AccessDeniedException, FileSystemException, Files, LinkOption, NoSuchFileException,
  NotDirectoryException, Path
}
import java.util.regex.Pattern

import scala.collection.JavaConverters._
import scala.collection.mutable
import scala.util.Try

import org.slf4j.LoggerFactory

/**
 * The source's directories as listed: by the node's scanner, to answer, and by a read task, to
 * find a planned file renamed or copied since. Both list the same way: in the order of the
 * paths' bytes, a directory gone holding no files, one that cannot be listed failing the look
 * ([[UnlistedDirectory]]), and both list again as often when a file they look for is missing
 * (the scanner only the directories a name changed in: [[LookedDirectories.Stamped]]).
 *
 * @param listed each directory's listing, passed through: tests place a rotation there, where no
 *               real one can be made to land on demand
 */
final class FileListing(files: SourceFiles, listed: Seq[Path] => Seq[Path] = Predef.identity) {
  import FileListing.log
  // Directories and links the file-name regex matched, each warned about once.
  private val matchedNotRead = mutable.Set.empty[Path]

  /**
   * The regular files of `first`, then those of the source's other directories, each listed only
   * when reached: a rotation renames and copies within a directory, or into another. `first` only
   * when it is one of the source's directories, and no link: a plan may name any file (§13).
   */
  def filesFrom(first: Path): Iterator[Path] =
    (Iterator(first).filter(files.isDirectory) ++
      files.directories().iterator.map(_.path).filter(_ != first))
      .flatMap(in(_, fromPattern = true))
      .filter(Files.isRegularFile(_, LinkOption.NOFOLLOW_LINKS))

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

  /**
   * A directory or a symbolic link a path's regex matches is not read: said once, with the
   * likely fix ([[FileListing.linkNotFollowed]]).
   */
  def warnIfNotRead(path: Path, regex: Pattern): Unit =
    if (Files.isSymbolicLink(path) && matchedNotRead.add(path)) {
      log.warn(s"aof: ${FileListing.linkNotFollowed(path, regex.toString)}")
    } else if (Files.isDirectory(path) && matchedNotRead.add(path)) {
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
  // Not a logger per listing: a read task makes one per range, in real-time mode every few ms.
  private val log = LoggerFactory.getLogger(classOf[FileListing])

  /**
   * Listings of a directory while a file looked for is missing from it: a rotation renaming
   * files while they are listed can hide one (listed under a name it leaves before it is looked
   * at, and not yet under its next), and its renames take milliseconds.
   */
  val Listings: Int = 4

  /**
   * Why a symbolic link a path matches is not read, and what to read instead. It is not
   * followed: the file it leads to is renamed and copied in its own directory by its rotation,
   * where the link does not go, so what it held would be lost at every rotation, or read twice.
   * Kubernetes' `/var/log/containers` holds such links, into `/var/log/pods`.
   */
  def linkNotFollowed(link: Path, regex: String): String = {
    val target = Try(link.toRealPath()).toOption
    val directory = target.map(_.getParent)
    val instead = target match {
      case Some(t) if t.startsWith("/var/log/pods") =>
        "/var/log/pods/*/*/.*\\.log.* (each container's log and its rotations)"
      case Some(t) => s"${t.getParent}/${t.getFileName.toString.replace(".", "\\.")}.*"
      case None => "the directory the link leads to"
    }
    s"$link matches the file-name regex '$regex' but is a symbolic link" +
      directory.fold(" to a file that is not there")(d => s" into $d") +
      ", and links are not followed: the file behind it is rotated in its own directory, " +
      s"where the link does not lead. Set 'path' to the files themselves: $instead."
  }

  /** What failed, in the system's words: "Permission denied", "Input/output error". */
  def reason(e: IOException): String = e match {
    case _: AccessDeniedException => "Permission denied"
    case f: FileSystemException if f.getReason != null => f.getReason
    case other => other.toString
  }
}
