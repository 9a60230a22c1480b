package com.hx.spark.sql.connector.aof.config

import java.io.IOException
import java.nio.file.{Files, Path}
import java.util.regex.Pattern

import scala.collection.JavaConverters._

import com.hx.spark.sql.connector.aof.files.FileListing

/**
 * The first mistakes made with `path`, whose last component is a regex on file names: a
 * directory named as if it were read whole (`/var/log/app`), and a shell glob (`*.log`). Both
 * would read nothing and say nothing, so they are refused when the query is defined, with the
 * path that was probably meant.
 */
object PathMistakes {

  /**
   * The regex a shell glob means: `*` any run of characters, `?` one, `[...]` a class, `{a,b}`
   * either; everything else literal.
   */
  def globAsRegex(glob: String): String = {
    val out = new StringBuilder
    var inClass = false
    var inGroup = false
    glob.foreach {
      case c if inClass =>
        out += c
        if (c == ']') inClass = false
      case '*' => out ++= ".*"
      case '?' => out += '.'
      case '[' =>
        out += '['
        inClass = true
      case '{' =>
        out += '('
        inGroup = true
      case '}' if inGroup =>
        out += ')'
        inGroup = false
      case ',' if inGroup => out += '|'
      case c if "\\.^$|+()[]{}".indexOf(c) >= 0 => out ++= "\\" + c
      case c => out += c
    }
    out.toString
  }

  /**
   * Refuses a `path` that the driver can see would match nothing but directories, or nothing at
   * all while the same name as a glob matches files. What the driver cannot see (a directory
   * only on the nodes, one with wildcards) is left to the nodes, which warn.
   *
   * @throws IllegalArgumentException naming `path` and the fix
   */
  def check(directory: Path, regex: String): Unit = {
    if (!Files.isDirectory(directory)) return
    val names =
      try {
        val listing = Files.list(directory)
        try listing.iterator().asScala.toVector
        finally listing.close()
      } catch { case _: IOException => return }
    val pattern = Pattern.compile(regex)
    val matched = names.filter(p => pattern.matcher(p.getFileName.toString).matches())
    val named = directory.resolve(regex)
    if (matched.nonEmpty && matched.forall(Files.isSymbolicLink(_))) {
      throw new IllegalArgumentException(
        s"Option 'path' ($named) matches only symbolic links. " +
          FileListing.linkNotFollowed(matched.head, regex))
    }
    if (matched.nonEmpty && matched.forall(Files.isDirectory(_))) {
      val example = matched.head
      throw new IllegalArgumentException(
        s"Option 'path' ($named) matches only directories (${matched.mkString(", ")}): its " +
          "last component is a regex on file names, and directories are not read. To read the " +
          s"files in $example, use '$example/.*' (or a narrower regex such as " +
          s"'$example/.*\\.log').")
    }
    if (matched.isEmpty && (regex.contains("*") || regex.contains("?"))) {
      val asGlob = directory.getFileSystem.getPathMatcher("glob:" + regex)
      val globbed = names.filter(p => asGlob.matches(p.getFileName))
      if (globbed.nonEmpty) {
        throw new IllegalArgumentException(
          s"Option 'path' ($named) matches no file, but as a shell glob it matches " +
            s"${globbed.size} (${globbed.take(3).map(_.getFileName).mkString(", ")}): its last " +
            s"component is a Java regex on file names: use '$directory/${globAsRegex(regex)}'.")
      }
    }
  }
}
