package com.hx.spark.sql.connector.aof.files

import java.io.IOException
import java.nio.file.{
  FileSystems,
  Files,
  LinkOption,
  NoSuchFileException,
  NotDirectoryException,
  Path,
  PathMatcher
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

  private sealed trait Component {
    def expand(dir: Path): Seq[Path]
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
  }

  private final class Matching(matcher: PathMatcher) extends Component {
    def expand(dir: Path): Seq[Path] =
      subdirectories(dir, followLinks = true).filter(p => matcher.matches(p.getFileName))
  }

  private object AnyDepth extends Component {
    def expand(dir: Path): Seq[Path] =
      dir +: subdirectories(dir, followLinks = false).flatMap(expand)
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
