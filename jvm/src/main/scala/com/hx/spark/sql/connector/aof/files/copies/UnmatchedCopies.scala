package com.hx.spark.sql.connector.aof.files.copies

import java.nio.channels.FileChannel
import java.nio.file.{Path, StandardOpenOption}
import java.util.regex.Pattern

import scala.util.Try

import com.hx.spark.sql.connector.aof.files.compression.{Compression, Decompressed}
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileMeta, KnownFile, Prefixes}
import com.hx.spark.sql.connector.aof.files.listing.{PathPattern, SourceFiles}

/**
 * A file in one of the source's directories that the source does not read (no `path` matches
 * its name, or `exclude` leaves it out), holding a retired file's bytes past its position: the
 * copy logrotate's `copytruncate` made, or the `.gz` a `compress` left, under a name `path` does
 * not match. The source does not read it, since `path` and `exclude` say what is read (design
 * §13): the bytes are counted lost, and the copy named.
 *
 * @param size the bytes it holds (decompressed, for a compressed copy)
 */
final case class UnmatchedCopy(path: String, size: Long)

/**
 * Finds the unmatched copies of the retired files a look found no copy of, among the files its
 * scan found that the source does not read ([[DirectoryScanner.unreadFiles]]): only at a
 * rotation (a file retired), and by a head and a tail read of those longer than the position.
 */
final class UnmatchedCopies(sampleLength: Int) {
  import UnmatchedCopies.Compared

  /** By retired file id, the unread copy of each of `retired` that none of `found` copies. */
  def of(
      retired: Map[String, KnownFile],
      found: Seq[FileMeta],
      unread: => Iterator[Path]): Map[String, UnmatchedCopy] = {
    val sought = retired.filter { case (id, k) =>
      k.floor > 0 && FileIdentity.copyable(k.fingerprint) &&
      !found.exists(_.copyOfRetired.contains(id))
    }
    if (sought.isEmpty) Map.empty
    else {
      // A tracked file renamed to a name no path matches is no copy: it is followed. Made only
      // where a file is not read: a node of 20,000 files read by their names has none.
      lazy val tracked = found.map(_.path).toSet
      val candidates = unread.filterNot(p => tracked(p.toString)).take(Compared).toVector
      sought.flatMap { case (id, k) =>
        candidates.iterator.map(holding(_, k)).collectFirst { case Some(copy) => id -> copy }
      }
    }
  }

  /** `file` as a copy of all of `k` and more, or None (a file gone meanwhile is none). */
  private def holding(file: Path, k: KnownFile): Option[UnmatchedCopy] =
    Try {
      val channel = FileChannel.open(file, StandardOpenOption.READ)
      try {
        Compression.of(channel).filter(Compression.decompresses) match {
          case None => copyIn(channel, file, k)
          // Decompressed whole only when its head is the retired file's.
          case Some(format)
              if Decompressed
                .headMd5(channel, format, k.fingerprint.length)
                .contains(k.fingerprint) =>
            val bytes = Decompressed.open(channel, format)
            try copyIn(bytes, file, k)
            finally bytes.close()
          case Some(_) => None
        }
      } finally channel.close()
    }.toOption.flatten

  private def copyIn(channel: FileChannel, file: Path, k: KnownFile): Option[UnmatchedCopy] = {
    val size = channel.size()
    def whole = FileIdentity(checked = true).ofCopy(
      k,
      size,
      Prefixes.md5(channel, k.fingerprint.length),
      Some(Prefixes.tail(channel, k.floor, sampleLength.toLong))) == FileIdentity.Same
    Some(UnmatchedCopy(file.toString, size)).filter(_ => size > k.floor && whole)
  }
}

object UnmatchedCopies {

  // Files looked at, at most: a directory of thousands of unread files is looked into by a few.
  private val Compared = 1000

  /**
   * What makes `copy` read: `exclude` leaves it out, or a `path` whose regex matches its name
   * too (the file's name the regex matched, then the copy's suffix with its numbers as any).
   */
  def advice(files: SourceFiles, copy: Path): String = {
    val name = copy.getFileName.toString
    files.paths.find(p => Option(copy.getParent).exists(p.glob.names)) match {
      case Some(p) if p.names.matcher(name).matches() =>
        s"'exclude' leaves it out (${files.exclude.mkString(", ")})"
      case Some(p) =>
        val widened = PathPattern(p.directory, widen(p.fileNameRegex, name))
        s"no 'path' matches it; one that does: '$widened'"
      case None => "no 'path' names its directory"
    }
  }

  /** `regex` widened to match `name`, a copy of a file whose name `regex` matches. */
  private[files] def widen(regex: String, name: String): String = {
    val group = if (regex.contains("|")) s"(?:$regex)" else regex
    val named = Pattern.compile(regex)
    (name.length - 1 to 1 by -1).find(i => named.matcher(name.substring(0, i)).matches()) match {
      case Some(end) => s"$group(${asRegex(name.substring(end))})?"
      case None => s"$regex|${asRegex(name)}"
    }
  }

  // The text, its numbers as any number: `.1.gz` as `\.[0-9]+\.gz`.
  private def asRegex(text: String): String =
    text
      .split("(?<=[0-9])(?![0-9])|(?<![0-9])(?=[0-9])")
      .map { part =>
        if (part.nonEmpty && part.forall(_.isDigit)) "[0-9]+"
        else part.flatMap(c => if ("\\.[]{}()*+?^$|".contains(c)) s"\\$c" else c.toString)
      }
      .mkString
}
