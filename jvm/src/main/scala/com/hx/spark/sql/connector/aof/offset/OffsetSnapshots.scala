package com.hx.spark.sql.connector.aof.offset

import java.io.{FileNotFoundException, IOException}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.zip.{GZIPInputStream, GZIPOutputStream}

import scala.io.Source

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * Offsets written whole once, in the source's checkpoint directory, so that the offset Spark
 * writes at every batch holds only what changed since one of them. Most tracked files are idle:
 * their positions and fingerprints stay as they are, and written whole at every batch 100,000
 * files are 28 MB of JSON per batch. A new snapshot is written when the changes since the last
 * one reach a tenth of the files tracked, so an offset stays within a tenth of the whole; under
 * [[OffsetSnapshots.LeastFiles]] files, offsets are written whole.
 *
 * Snapshots are numbered in the order written, and offsets only move to newer ones: those older
 * than the snapshot of the oldest offset Spark keeps in its offset log (its last
 * `spark.sql.streaming.minBatchesToRetain` batches) are deleted, so every offset Spark could
 * restart from, or a user roll back to, stays readable. Written through Hadoop's FileSystem, as
 * the rest of the checkpoint, under a temporary name then renamed, so a snapshot named is whole.
 *
 * @param sourceCheckpoint the location Spark gives the source: `<checkpoint>/sources/<index>`
 * @param oldestOffset     the JSON of the oldest offset of this source in Spark's offset log
 */
final class OffsetSnapshots(
    hadoopConf: Configuration,
    sourceCheckpoint: String,
    oldestOffset: () => Option[String]) {
  private val dir = new Path(sourceCheckpoint, "snapshots")
  private lazy val fs = dir.getFileSystem(hadoopConf)
  private lazy val numbers = new OffsetSnapshots.Numbers(written())
  // The offsets of a batch and of the next are on the same snapshot but for a few triggers.
  private var cached = List.empty[OffsetSnapshot]

  /** `end` as the checkpoint should hold it: on `start`'s snapshot, or on a new one. */
  def rebase(start: AofOffset, end: AofOffset): AofOffset =
    if (AofOffset.sameHosts(end.hosts, start.hosts)) start
    else {
      // Its changes, computed here, are kept with it for its JSON.
      val onStart = AofOffset.onBaseOf(start, end.hosts, end.plannedAtMs)
      val files = end.hosts.values.map(_.files.size.toLong).sum
      lazy val changes = if (start.base.isEmpty) files else onStart.changedFiles
      if (files < OffsetSnapshots.LeastFiles) AofOffset(end.hosts, None, end.plannedAtMs)
      else if (changes * OffsetSnapshots.ChangesPerSnapshot <= files) onStart
      else AofOffset(end.hosts, Some(write(end.hosts)), end.plannedAtMs)
    }

  /** The snapshot `id`, read from the checkpoint if not at hand. */
  def read(id: String): OffsetSnapshot = synchronized(cached.find(_.id == id)).getOrElse {
    val file = new Path(dir, OffsetSnapshots.fileName(id))
    val json =
      try {
        val source = Source.fromInputStream(new GZIPInputStream(fs.open(file)), UTF_8.name)
        try source.mkString
        finally source.close()
      } catch {
        case _: FileNotFoundException =>
          throw new IllegalStateException(
            s"aof: the checkpoint's offsets are on snapshot $file, which is missing: restore it " +
              "from a copy of the checkpoint, or start the query on a new checkpoint (it resumes " +
              "from the offsets backed up in ZooKeeper under meta.store).")
      }
    keep(new OffsetSnapshot(id, AofOffset.fromJson(json).hosts))
  }

  /**
   * Deletes the snapshots older than that of the oldest offset in Spark's offset log. Spark's log
   * is listed and read only while there is one to delete: an offset is on the newest snapshot or
   * an older one, and a query of few files, or of one file written among many, writes one at
   * most for a long while.
   */
  def forgetUnused(): Unit = if (numbers.older) {
    oldestOffset().flatMap(OffsetJson.snapshotOf).foreach { oldest =>
      numbers.before(oldest).foreach { id =>
        fs.delete(new Path(dir, OffsetSnapshots.fileName(id)), false)
        numbers.forget(id)
      }
    }
  }

  private def write(hosts: Map[String, HostOffsets]): OffsetSnapshot = {
    val snapshot = new OffsetSnapshot(numbers.next(), hosts)
    val file = new Path(dir, OffsetSnapshots.fileName(snapshot.id))
    val temporary = new Path(dir, s".${file.getName}.tmp")
    val out = new GZIPOutputStream(fs.create(temporary, true))
    try out.write(AofOffset(hosts).json().getBytes(UTF_8))
    finally out.close()
    if (!fs.rename(temporary, file)) throw new IOException(s"aof: could not write $file")
    keep(snapshot)
  }

  private def keep(snapshot: OffsetSnapshot): OffsetSnapshot = synchronized {
    cached = (snapshot :: cached.filterNot(_.id == snapshot.id)).take(2)
    snapshot
  }

  private def written(): Seq[String] =
    try fs.listStatus(dir).map(_.getPath.getName).flatMap(OffsetSnapshots.idOf).toSeq
    catch { case _: FileNotFoundException => Nil }
}

object OffsetSnapshots {

  /** A new snapshot once the files an offset writes exceed this fraction of those tracked. */
  val ChangesPerSnapshot: Long = 10

  /**
   * The fewest files tracked (all hosts together) whose offsets are written on a snapshot: fewer
   * are a few kilobytes written whole, less than a snapshot costs at every batch that moves a
   * tenth of them (with one file written, every batch).
   */
  val LeastFiles: Long = 100

  private val Name = """(\d{12})\.json\.gz""".r

  def fileName(id: String): String = s"$id.json.gz"

  def idOf(name: String): Option[String] = name match {
    case Name(id) => Some(id)
    case _ => None
  }

  /** The snapshots in the checkpoint, by number: the next to write, and those to delete. */
  private final class Numbers(found: Seq[String]) {
    private var ids = found.sorted.toVector

    def next(): String = synchronized {
      val id = f"${ids.lastOption.fold(0L)(_.toLong + 1)}%012d"
      ids :+= id
      id
    }

    def before(id: String): Seq[String] = synchronized(ids.takeWhile(_ < id))

    // Any but the newest.
    def older: Boolean = synchronized(ids.size > 1)

    def forget(id: String): Unit = synchronized {
      ids = ids.filterNot(_ == id)
    }
  }
}
