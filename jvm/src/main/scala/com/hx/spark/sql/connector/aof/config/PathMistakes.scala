package com.hx.spark.sql.connector.aof.config

import java.io.IOException
import java.nio.file.{Files, Path}
import java.util.concurrent.ConcurrentHashMap
import java.util.regex.Pattern

import scala.collection.JavaConverters._

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.listing.FileListing

/**
 * The first mistakes made with `path`, whose last component is a regex on file names: a
 * directory named as if it were read whole (`/var/log/app`), and a shell glob (`*.log`). Both
 * would read nothing and say nothing, so they are refused when the query is defined, with the
 * path that was probably meant. A glob that is a regex too (`app*.log`) and matches other files
 * as one is warned about, once.
 */
object PathMistakes {
  private val log = LoggerFactory.getLogger(getClass)
  // The paths warned about, once a JVM: a notebook defines the same query again and again.
  private val warned = ConcurrentHashMap.newKeySet[String]()

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
    if (regex.contains("*") || regex.contains("?")) {
      val asGlob = directory.getFileSystem.getPathMatcher("glob:" + regex)
      val globbed = names.filter(p => asGlob.matches(p.getFileName))
      val meant = s"$directory/${globAsRegex(regex)}"
      def some(files: Seq[Path]) =
        s"${files.size} (${files.take(3).map(_.getFileName).mkString(", ")})"
      if (matched.isEmpty && globbed.nonEmpty) {
        throw new IllegalArgumentException(
          s"Option 'path' ($named) matches no file, but as a shell glob it matches " +
            s"${some(globbed)}: its last component is a Java regex on file names: use " +
            s"'$meant'.")
      }
      if (readsAsGlob(regex) && globbed.toSet != matched.toSet && warned.add(named.toString)) {
        log.warn(
          s"aof: 'path' ($named) is read as a Java regex on file names, which matches " +
            s"${some(matched)} here; as a shell glob it would match ${some(globbed)}. For the " +
            s"files of the glob, use '$meant'.")
      }
    }
  }

  /**
   * Whether a file-name regex reads as a shell glob: a `*` or `?` after a plain character
   * (`app*.log`, `app.log*`), which a regex rarely means (`.*`, `[0-9]*` and `(a|b)?` do not).
   */
  private def readsAsGlob(regex: String): Boolean =
    regex.indices.exists { i =>
      val c = regex(i)
      (c == '*' || c == '?') && i > 0 && ".)]}*?+\\".indexOf(regex(i - 1)) < 0
    }
}
