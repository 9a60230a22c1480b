package com.hx.spark.sql.connector.aof.files.listing

import java.io.IOException
import java.nio.file.{
  FileSystems, Files, LinkOption, NoSuchFileException, NotDirectoryException, Path, PathMatcher,
  Paths
}

import scala.collection.JavaConverters._

/**
 * The directory part of `path`, which may hold wildcards: within one component `*`, `?`,
 * `[a-z]` and `{a,b}` (Java's glob syntax, matched by the JDK's own glob matcher), and `**` as a
 * whole component for any number of directories, none included. A literal directory is the only
 * one it names, whether or not it exists.
 *
 * The directories are found by listing from the literal start (`root`) down, one component at a
 * time: a layout of pods with a directory per container costs one listing per directory. `**`
 * does not follow symbolic links to directories (a link to a parent would never end); a
 * component with `*` does, as a literal one does.
 *
 * @throws UnlistedDirectory when a directory on the way cannot be listed: what it holds is
 *                           unknown, not gone
 */
final class DirectoryGlob private (val root: Path, components: Seq[String]) {
  import DirectoryGlob.Component

  private val steps: Seq[Component] = components.map(Component.of)

  /** Whether any component holds a wildcard: else `root` is the one directory named. */
  def isPattern: Boolean = components.nonEmpty

  /** The directories named, in no particular order; a directory that goes meanwhile is left out. */
  def directories(): Seq[Path] =
    steps
      .foldLeft(Seq(root).filter(Files.isDirectory(_)))((dirs, step) =>
        dirs.flatMap(step.expand).distinct)

  /**
   * Whether `dir` (absolute, normalized) is one of the directories named, by its name alone: a
   * read task asks it of a file it was told to open, and listing a pattern's directories there
   * would cost what a node's look does.
   */
  def names(dir: Path): Boolean =
    dir.startsWith(root) && {
      val rest = root.relativize(dir).iterator().asScala.map(_.toString).filter(_.nonEmpty)
      DirectoryGlob.matches(steps.toList, rest.toList)
    }
}

object DirectoryGlob {
  private val WildcardChars = "*?[{"

  /** `directory` split at its first component holding a wildcard. */
  def of(directory: Path): DirectoryGlob = {
    val names = directory.iterator().asScala.map(_.toString).toSeq
    val literal = names.takeWhile(n => !hasWildcard(n))
    val root = literal.foldLeft(directory.getRoot)(_.resolve(_))
    new DirectoryGlob(root, names.drop(literal.size))
  }

  def hasWildcard(component: String): Boolean = component.exists(c => WildcardChars.contains(c))

  private def matches(steps: List[Component], names: List[String]): Boolean =
    (steps, names) match {
      case (Nil, rest) => rest.isEmpty
      case (AnyDepth :: more, rest) => rest.tails.exists(matches(more, _))
      case (step :: more, name :: rest) => step.matches(name) && matches(more, rest)
      case (_, Nil) => false
    }

  private sealed trait Component {
    def expand(dir: Path): Seq[Path]
    def matches(name: String): Boolean
  }

  private object Component {
    def of(name: String): Component =
      if (name == "**") AnyDepth
      else if (hasWildcard(name))
        new Matching(FileSystems.getDefault.getPathMatcher("glob:" + name))
      else new Literal(name)
  }

  private final class Literal(name: String) extends Component {
    def expand(dir: Path): Seq[Path] = Seq(dir.resolve(name)).filter(Files.isDirectory(_))
    def matches(other: String): Boolean = other == name
  }

  private final class Matching(matcher: PathMatcher) extends Component {
    def expand(dir: Path): Seq[Path] =
      subdirectories(dir, followLinks = true).filter(p => matcher.matches(p.getFileName))
    def matches(name: String): Boolean = matcher.matches(Paths.get(name))
  }

  private object AnyDepth extends Component {
    def expand(dir: Path): Seq[Path] =
      dir +: subdirectories(dir, followLinks = false).flatMap(expand)
    def matches(name: String): Boolean = true
  }

  private def subdirectories(dir: Path, followLinks: Boolean): Seq[Path] = {
    val options = if (followLinks) Seq.empty else Seq(LinkOption.NOFOLLOW_LINKS)
    val stream =
      try Files.newDirectoryStream(dir)
      catch {
        case _: NoSuchFileException | _: NotDirectoryException => return Seq.empty // gone
        case e: IOException =>
          throw new UnlistedDirectory(s"$dir cannot be listed (${FileListing.reason(e)})")
      }
    try stream.iterator().asScala.filter(p => Files.isDirectory(p, options: _*)).toVector
    finally stream.close()
  }
}
