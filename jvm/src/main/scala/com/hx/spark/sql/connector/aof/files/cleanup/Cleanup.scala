package com.hx.spark.sql.connector.aof.files.cleanup

import java.io.IOException
import java.nio.file.{Files, NoSuchFileException, Path, Paths}

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, FileStamp, Fingerprint}

/**
 * `cleanup`: files read to their last byte, in batches Spark committed, deleted or moved into
 * `archive` (under their whole path, never over a file archived before), on the node that holds
 * them.
 *
 * The driver names the candidates, from the committed offsets only: files whose position is their
 * whole size as planned. The node removes one only if it is still that file, at that size, and is
 * not the newest file the source reads in its directory, the one a writer appends to; nor one
 * another file of the look is a copy of: a compressor may be writing it, and would go on once its
 * input is removed, to a copy the driver could no longer tell from a new file. And only once it
 * went `afterMs` without a write since it was rotated away: counted from the later of its last
 * write and its change time when the node first saw it waiting (not the newest), which is when
 * it was renamed away from the name a writer appends to. A writer may go on writing the file it
 * was rotated away from until it reopens its name, so that rename starts the wait; the renames
 * that follow along a rotation chain (`app.log.1` to `app.log.2`, at each rotation) are not
 * writes, and do not start it again, or a busy log's backups would never go.
 *
 * @param archive the directory files are moved into; None deletes them
 */
final case class Cleanup(archive: Option[String], afterMs: Long) {
  @transient private lazy val log = LoggerFactory.getLogger(getClass)

  /**
   * The candidates the node may remove now, from one look: each with its description and
   * stamp as the look found them, and the floor the driver gave; `copied` are the files the
   * look's others are copies of; `waitingSince`, the change time of each file that waited at the
   * last look, when the node first saw it waiting (with its head: a key reused is another file).
   * And how long until the first that only waits for `afterMs` may go, if none is written again:
   * a look then removes it.
   */
  def removable(
      candidates: Seq[Cleanup.Candidate],
      newestInDirectory: Path => Option[FileKey],
      copied: Set[FileKey],
      waitingSince: Map[FileKey, Cleanup.Since],
      nowMs: Long): Cleanup.Judged = {
    val waits = waiting(candidates, newestInDirectory, copied)
    val since = waits.map { c =>
      val head = c.meta.fingerprint
      val before = waitingSince.get(c.meta.key).filter(_.head == head)
      c.meta.key -> before.getOrElse(Cleanup.Since(head, c.stamp.changedNanos / 1000000L))
    }.toMap
    def quietMs(c: Cleanup.Candidate) =
      nowMs - math.max(c.stamp.modifiedMs, since(c.meta.key).changedMs)
    val (now, later) = waits.partition(quietMs(_) >= afterMs)
    val due = later.map(afterMs - quietMs(_))
    Cleanup.Judged(now, if (due.isEmpty) None else Some(due.min), since)
  }

  /** The candidates that may be removed once they went `afterMs` without a write. */
  private def waiting(
      candidates: Seq[Cleanup.Candidate],
      newestInDirectory: Path => Option[FileKey],
      copied: Set[FileKey]): Seq[Cleanup.Candidate] =
    candidates.filter { c =>
      val m = c.meta
      c.same && m.unreadable.isEmpty && m.size == c.floor && m.lineEnd == m.size &&
      m.size > 0 && m.copyOf.isEmpty && !copied(m.key) &&
      !newestInDirectory(Paths.get(m.path).getParent).contains(m.key)
    }

  /**
   * Removes the file, unless its stamp changed since it was judged (a write, a rename): true
   * when it is gone from where it was; `failed` is told why when it cannot be. An archived file
   * never replaces one archived before: a name taken gets the time, `nowMs` ([[ArchivedFile]]).
   */
  def remove(
      c: Cleanup.Candidate,
      stat: Path => FileStamp,
      nowMs: Long,
      failed: (Path, String) => Unit): Boolean = {
    val path = Paths.get(c.meta.path)
    try {
      if (stat(path) != c.stamp) false
      else {
        archive match {
          case None => Files.delete(path)
          case Some(dir) =>
            val target = Paths.get(dir, path.toString)
            val placed = ArchivedFile.move(path, target, c.stamp.key, nowMs)
            if (placed != target) {
              log.info(s"aof: archived $path as $placed: $target holds a file archived before")
            }
        }
        true
      }
    } catch {
      case _: NoSuchFileException => false
      case e: IOException =>
        failed(path, s"cannot ${archive.fold("delete")(d => s"archive into $d")} $path: $e")
        false
    }
  }
}

object Cleanup {

  /** The newest file the source reads in each directory, by its last write: a writer's. */
  def newestIn(metas: Seq[FileMeta], stamp: FileKey => Option[FileStamp]): Path => Option[FileKey] =
    metas
      .flatMap(m => stamp(m.key).map(s => (Paths.get(m.path).getParent, m.key, s)))
      .groupBy(_._1)
      .map { case (dir, files) => dir -> files.maxBy(_._3.modifiedNanos)._2 }
      .get

  /**
   * A file the driver named, as a look found it: `same` when it is still the file the driver
   * read to `floor` (its head and the bytes before `floor` unchanged).
   */
  final case class Candidate(meta: FileMeta, stamp: FileStamp, floor: Long, same: Boolean)

  /**
   * What one look may remove now; how long until the next that waits may go; and when each that
   * waits began to (its change time when first seen waiting), for the next look.
   */
  final case class Judged(now: Seq[Candidate], dueInMs: Option[Long], since: Map[FileKey, Since])

  /** A file's change time when the node first saw it waiting, and its head then. */
  final case class Since(head: Fingerprint, changedMs: Long)
}
