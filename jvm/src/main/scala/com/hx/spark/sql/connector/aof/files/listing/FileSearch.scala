package com.hx.spark.sql.connector.aof.files.listing

import java.io.IOException
import java.nio.channels.FileChannel
import java.nio.file.{Files, NoSuchFileException, Path, StandardOpenOption}
import java.util.concurrent.ConcurrentHashMap

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.compression.{Compression, Decompressed}
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, Fingerprint, KnownFile, Prefixes
}

/**
 * A planned file found again where a read task runs: by its key, under its planned name or the
 * one it was renamed to since; or, cut short since (logrotate's `copytruncate`), a copy that
 * starts with its head and reaches the planned end. Both are looked for beside the planned file
 * first, then in the source's other directories (logrotate's `olddir`), listed as the node lists
 * them ([[FileListing]]); a copy never among the files `exclude` leaves out. Each search lists
 * again while it finds nothing: a rotation renaming files while they are listed can hide one.
 *
 * @param planned  the key, the end planned (its floor) and the head it was planned with
 * @param path     its name when planned
 * @param what     the planned bytes, as an error names them
 */
final class FileSearch(
    planned: KnownFile,
    path: Path,
    files: SourceFiles,
    identity: FileIdentity,
    what: String) {
  import FileSearch.log
  private val listing = new FileListing(files)

  /** The file itself, or else a copy of it: open, and its path. */
  def fileOrCopy(): Option[(Path, FileChannel)] = listed(byKey().orElse(copy()))

  /** A copy of the file, which was cut short while it was read. */
  def copyOnly(): Option[(Path, FileChannel)] = listed(copy())

  private def listed(find: => Option[(Path, FileChannel)]): Option[(Path, FileChannel)] =
    Iterator.fill(FileListing.Listings)(find).collectFirst { case Some(s) => s }

  /** The file itself, under its planned name or the one it was renamed to since. */
  private def byKey(): Option[(Path, FileChannel)] = {
    val there =
      if (FileSearch.allowed(path, files, what) && keyOf(path).contains(planned.key)) {
        openOurs(path)
      } else None
    // Renamed since planning, or just now, between the look at its name and the open.
    there.orElse(candidates().find(p => keyOf(p).contains(planned.key)).flatMap(openOurs))
  }

  /** The planned file itself: one that is there but cannot be opened is not lost. */
  private def openOurs(p: Path): Option[(Path, FileChannel)] =
    try openAs(p, planned.key, FileChannel.open(p, StandardOpenOption.READ), ofKey = true)
    catch {
      case _: NoSuchFileException => None
      case e: IOException =>
        throw new IOException(
          s"aof: cannot read $p ($what): $e. Its bytes are still there, so the task fails, to " +
            "be tried again, rather than count them lost",
          e)
    }

  /** Another file that starts like this one and holds the whole range. */
  private def copy(): Option[(Path, FileChannel)] = {
    def open(p: Path) =
      try Some(FileChannel.open(p, StandardOpenOption.READ))
      catch { case _: IOException => None }
    val found = candidates()
      .filterNot(files.isExcluded)
      .flatMap(p =>
        keyOf(p)
          .filter(_ != planned.key)
          .flatMap(k => open(p).flatMap(openAs(p, k, _, ofKey = false))))
      .take(1)
      .toList
      .headOption
    found.foreach { case (p, _) => log.info(s"aof: $path was cut short; reading its copy $p") }
    found
  }

  private def candidates(): Iterator[Path] = listing.filesFrom(path.getParent)

  /**
   * `p` opened, if once open it still is the file `key`, starts with the planned head and holds
   * the planned bytes. Checked after the open: a rotation renames files in quick succession, and
   * the name looked at a moment ago may already be another file's (whose lines would then be
   * read twice). A compressed file is read as what it decompresses to, as its node described it:
   * the planned file itself, or the compressed rotation of one deleted since. It is decompressed
   * only once its head is the planned one, as [[FileIdentity]] judges a head.
   *
   * @param ofKey whether `p` is the planned key's file, or may be a copy of it
   */
  private def openAs(
      p: Path,
      key: FileKey,
      file: FileChannel,
      ofKey: Boolean): Option[(Path, FileChannel)] = {
    val headLength = planned.fingerprint.length
    def holdsRange(size: Long, head: => Option[Fingerprint]) = FileIdentity.Same == {
      if (ofKey) identity.ofKey(planned, size, head, None)
      else identity.ofCopy(planned, size, head, None)
    }
    val lines =
      try {
        if (!keyOf(p).contains(key)) None
        else
          Compression.of(file) match {
            case None => Some(file)
            // Its size is known only once decompressed: the head alone decides whether to.
            case Some(f)
                if Compression.decompresses(f) &&
                  holdsRange(planned.floor, Decompressed.headMd5(file, f, headLength)) =>
              Some(Decompressed.open(file, f))
            case Some(_) => None
          }
      } catch { case _: IOException => None }
    if (!lines.contains(file)) file.close()
    val holds =
      try lines.exists(c => holdsRange(c.size(), Prefixes.md5(c, headLength)))
      catch { case _: IOException => false }
    if (holds) lines.map(p -> _)
    else {
      lines.foreach(_.close())
      None
    }
  }

  private def keyOf(p: Path): Option[FileKey] =
    try Some(FileKey.of(p))
    catch { case _: IOException => None }
}

object FileSearch {
  // Not a logger per search: a read task makes one per range, in real-time mode every few ms.
  private val log = LoggerFactory.getLogger(classOf[FileSearch])
  // Each refused name said once a JVM, up to a bound: forged plans may name many.
  private val refused = ConcurrentHashMap.newKeySet[Path]()
  private val RefusedSaid = 1000

  /**
   * Whether a planned name may be opened: a file in one of the source's directories, and no
   * link (the node's look reads none). Anything else was named by state the source did not make,
   * and is refused, and said.
   */
  def allowed(path: Path, files: SourceFiles, what: String): Boolean =
    (files.mayOpen(path) && !Files.isSymbolicLink(path)) || {
      if (refused.size < RefusedSaid && refused.add(path)) {
        log.warn(
          s"aof: refused to open $path ($what): it is not a file of the source's 'path' " +
            s"($files). A plan named it that the source did not make: see docs/security.md.")
      }
      false
    }
}
