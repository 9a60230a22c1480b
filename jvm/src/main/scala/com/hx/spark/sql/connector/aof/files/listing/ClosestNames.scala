package com.hx.spark.sql.connector.aof.files.listing

import java.nio.file.{Files, LinkOption, Path}

import scala.util.Try

import org.apache.commons.text.similarity.LevenshteinDistance

/**
 * The files in the source's directories whose names come closest to its file-name regex, when
 * the regex matches none of them: what a typo in `path` (`app.log` for `App.log`, `.*\.log` for
 * `*.log.gz`) most likely meant. Looked for only by a look that found no file, in directories
 * that hold some; by edit distance to the regex read as text (escapes and wildcards dropped).
 */
object ClosestNames {

  /** How many names are said. */
  val Shown: Int = 3

  // Names compared at most: a directory of thousands is a misconfiguration said by a few.
  private val Compared = 1000
  private val distance = LevenshteinDistance.getDefaultInstance

  /** The closest files, by path, none when the directories hold no file. */
  def of(files: SourceFiles, listing: FileListing): Seq[String] = {
    val named = for {
      dir <- Try(files.directories()).getOrElse(Nil).iterator
      file <- Try(listing.in(dir.path, fromPattern = true)).getOrElse(Nil).iterator
      if Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
    } yield dir -> file
    named
      .take(Compared)
      .toVector
      .map { case (dir, file) => (apart(dir.names.map(_.pattern), file), file.toString) }
      .sorted
      .take(Shown)
      .map(_._2)
  }

  /** How far `file`'s name is from the nearest of `regexes`, read as text. */
  private def apart(regexes: Seq[String], file: Path): Int = {
    val name = file.getFileName.toString
    regexes.map(r => distance.apply(asText(r), name).intValue).min
  }

  /** A regex as the text it matches most plainly: `app\.log.*` as `app.log`. */
  private[files] def asText(regex: String): String =
    regex
      .replaceAll("""\\Q(.*?)\\E""", "$1")
      .replaceAll("""\[[^\]]*\]|\.[*+?]|[*+?^$()|]|\{\d*,?\d*\}""", "")
      .replaceAll("""\\(.)""", "$1")
}
