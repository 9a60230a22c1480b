package com.hx.spark.sql.connector.aof.files.cleanup

import java.io.IOException
import java.nio.file.{
  FileAlreadyExistsException, Files, NoSuchFileException, Path, StandardCopyOption
}
import java.time.{Instant, ZoneOffset}
import java.time.format.DateTimeFormatter
import java.util.Locale

import com.hx.spark.sql.connector.aof.files.identity.FileKey

/**
 * Moves a file into `cleanup.archive.dir` without ever replacing a file there. Logrotate gives
 * its numbered names (`app.log.1`, `app.log.2.gz`) to new files at each rotation, so the archive
 * is handed the same name again and again: a rename, which replaces its target, would lose the
 * file archived before it without a word.
 *
 * A name that is taken gets the time of archiving, UTC: `app.log.1.2026-12-03T16-40-00.123Z`.
 * It has a fixed width, so the timed files of one name sort in the order they came (the one
 * without a time came first); it ends in no number, so it does not read as one more rotation of
 * a log; and it has no colon, which some tools take for a host. A compressed file keeps its
 * extension last (`app.log.2.2026-12-03T16-40-00.123Z.gz`), so that `gunzip`, `zless`, file
 * managers and a retention job's `find -name '*.gz'` still know it.
 */
private[files] object ArchivedFile {
  private val Time =
    DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss.SSS'Z'").withZone(ZoneOffset.UTC)
  // Those of the compressors `Compression` reads, as logrotate's `compressext` names them.
  private val CompressedExtensions = Set("gz", "bz2", "xz", "zst", "lz4")
  // Names tried after the time's: the same name archived twice in one millisecond.
  private val Tries = 100

  /** The name `name` has in the archive at the `attempt`-th try, the first being 0. */
  def name(name: String, nowMs: Long, attempt: Int): String =
    if (attempt == 0) name
    else {
      val dot = name.lastIndexOf('.')
      val compressed =
        dot > 0 && CompressedExtensions(name.substring(dot + 1).toLowerCase(Locale.ROOT))
      val (base, extension) =
        if (compressed) (name.substring(0, dot), name.substring(dot)) else (name, "")
      val again = if (attempt == 1) "" else s"-${attempt - 1}"
      s"$base.${Time.format(Instant.ofEpochMilli(nowMs))}$again$extension"
    }

  /**
   * Moves `source`, the file of `key`, to `target` or, when that name is taken, to the first of
   * [[name]]'s that is free: where the file is now. Throws [[NoSuchFileException]] when `source`
   * is gone or holds another file than `key`'s (a rotation renamed them meanwhile): nothing is
   * moved then.
   */
  @throws[IOException]
  def move(source: Path, target: Path, key: FileKey, nowMs: Long): Path = {
    Files.createDirectories(target.getParent)
    val names = Iterator
      .range(0, Tries)
      .map(a => target.resolveSibling(name(target.getFileName.toString, nowMs, a)))
    var linkable = true
    val placed = names
      .find { t =>
        if (linkable) {
          try linked(source, t, key)
          catch {
            case e: NoSuchFileException => throw e
            // Another filesystem (EXDEV), or one without hard links: copied then.
            case _: IOException | _: UnsupportedOperationException =>
              linkable = false
              copied(source, t, key)
          }
        } else {
          copied(source, t, key)
        }
      }
      .getOrElse(throw new FileAlreadyExistsException(s"$target and $Tries names beside it"))
    val still =
      try FileKey.of(source) == key
      catch { case _: NoSuchFileException => false }
    if (!still) {
      // Renamed meanwhile (a rotation): it is judged again under its new name, and archived
      // from there, so the name given here is taken back. A file renamed to its name stays.
      Files.deleteIfExists(placed)
      throw new NoSuchFileException(source.toString, null, "renamed while archived")
    }
    Files.delete(source)
    placed
  }

  /**
   * Gives the file a second name, `target`, which fails at once when the name exists; false
   * then, unless it is the same file (linked before the source was deleted, by a node that
   * stopped between the two).
   */
  private def linked(source: Path, target: Path, key: FileKey): Boolean =
    try {
      Files.createLink(target, source)
      if (FileKey.of(target) == key) true
      else {
        // Another file was renamed to the source's name meanwhile: not the one to archive.
        Files.delete(target)
        throw new NoSuchFileException(source.toString, null, "renamed while archived")
      }
    } catch {
      case _: FileAlreadyExistsException => FileKey.of(target) == key
    }

  /**
   * Copies the file to `target`, which fails at once when the name exists (without
   * `REPLACE_EXISTING` the target is created exclusively): false then. A copy cut short is
   * removed.
   */
  private def copied(source: Path, target: Path, key: FileKey): Boolean = {
    if (FileKey.of(source) != key) {
      throw new NoSuchFileException(source.toString, null, "renamed while archived")
    }
    try {
      Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES)
      true
    } catch {
      case _: FileAlreadyExistsException => false
      case e: IOException =>
        Files.deleteIfExists(target)
        throw e
    }
  }
}
