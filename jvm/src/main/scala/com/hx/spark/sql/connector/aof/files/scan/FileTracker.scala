package com.hx.spark.sql.connector.aof.files.scan

import java.io.IOException
import java.nio.channels.FileChannel
import java.nio.file.{NoSuchFileException, Path, StandardOpenOption}
import java.time.Clock

import scala.collection.mutable

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.compression.{Compression, Decompressed}
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, FileStamp, Fingerprint, KnownFile, NodeRequest, Prefixes
}
import com.hx.spark.sql.connector.aof.files.lines.LineEnding
import com.hx.spark.sql.connector.aof.files.listing.FileListing
import com.hx.spark.sql.connector.aof.files.records.{BatchCuts, RecordRule}

/**
 * Everything a node keeps of its files between looks, by key, and the description of one file
 * at a look: answered again without reading while its bytes and the driver's request stay the
 * same (most files, most triggers). What is kept of a file no look reaches any more is forgotten
 * ([[keepOnly]]), all of it at once.
 *
 * A compressed file is described as the bytes it decompresses to ([[Decompressed]]). A file that
 * cannot be read is described unreadable, with why, said once when it starts and once when it
 * ends.
 *
 * @param changed told of each file (by key) whose kept answer, format or unreadability changed,
 *                as it changes: a directory kept as a whole ([[KeptDirectories]]) is doubted then
 */
private[files] final class FileTracker(
    sampleLength: Int,
    grouping: Option[RecordRule],
    batchCuts: Option[BatchCuts],
    stat: Path => FileStamp,
    clock: Clock,
    identity: FileIdentity,
    ignoreOlderMs: Option[Long],
    ending: LineEnding,
    changed: FileKey => Unit = _ => ()) {
  private val log = LoggerFactory.getLogger(getClass)
  private val describer =
    new FileDescriber(sampleLength, grouping, batchCuts, identity, clock, ending)
  private val reopens = grouping.filter(_.format.byRuntime).map(new RuntimeReopens(_, describer))
  private val described = mutable.Map.empty[FileKey, FileDescription]
  private val unreadable = mutable.Map.empty[FileKey, String]
  // What each file was found to be (a compression format, or none), at which stamp.
  private val formats = mutable.Map.empty[FileKey, (FileStamp, Option[String])]
  val old: OldFiles = new OldFiles(ignoreOlderMs, sampleLength, clock, stat)
  // Compressed files decompressed so far: each costs a pass over all a file holds.
  private[files] var decompressions: Long = 0L

  /** The files whose answers are kept. */
  def remembered: Int = described.size

  /** Whether the file (by key) is compressed: its bytes are read only decompressed. */
  def compressed(key: FileKey): Boolean = formats.get(key).exists(_._2.nonEmpty)

  /**
   * A look's files, with a runtime's file renamed amid a message joined to the one reopened at its
   * name ([[RuntimeReopens]]).
   */
  def joined(
      metas: Seq[FileMeta],
      stamps: FileKey => Option[FileStamp],
      request: NodeRequest): Seq[FileMeta] = {
    val floor = (m: FileMeta) => if (request.keepsTracked(m)) m.floor.getOrElse(0L) else 0L
    val compressed = (key: FileKey) =>
      formats.get(key).map(_._2).collect {
        case None => false
        case Some(f) if Compression.decompresses(f) => true
      }
    reopens.fold(metas)(_.joined(metas, stamps, compressed, floor))
  }

  /** Forgets every file not `kept`: what was described, found unreadable, and of what format. */
  def keepOnly(kept: FileKey => Boolean): Unit = {
    describer.keepOnly(kept)
    // Through the keys, not a set of them: thousands of files are kept at every look.
    def forget(m: mutable.Map[FileKey, _]): Unit = {
      val forgotten = m.keysIterator.filterNot(kept).toList
      forgotten.foreach(changed)
      m --= forgotten
    }
    forget(described)
    forget(unreadable)
    forget(formats)
    old.keepOnly(kept)
  }

  /**
   * The file's answer; none for a compressor's output just begun, or one gone or replaced since.
   * One not tracked and not modified for `ignore.older` is `ignored`, unless it is a copy.
   */
  def describe(path: Path, stamp: FileStamp, request: NodeRequest): Option[FileMeta] = {
    val asked = request.knownByKey.get(stamp.key)
    val format = formatOf(path, stamp, asked)
    // A compressor's output just begun waits for its magic, as an empty file waits: also under a
    // tracked file's key (a deleted file's inode is soon another's), unless it is still that file.
    if (format.contains(Compression.Incomplete) && !asked.exists(startsAs(path, stamp, _))) None
    else {
      readable(path, stamp)(describeAgain(path, stamp, format, asked, request))
        .map(old.judged(_, stamp, tracked = asked.nonEmpty))
    }
  }

  /**
   * What [[describe]] answers for a plain file whose answer at `stamp` is the one kept, with no
   * byte read and nothing asked twice: most files of most looks, thousands at each.
   */
  def kept(path: Path, stamp: FileStamp, request: NodeRequest): Option[FileMeta] = {
    val asked = request.knownByKey.get(stamp.key)
    described
      .get(stamp.key)
      .filter(d => d.stamp == stamp && keeps(d, request, asked))
      .filter(_ =>
        formats.get(stamp.key).contains((stamp, None)) && !unreadable.contains(stamp.key))
      .map(d => old.judged(named(d.meta, path), stamp, tracked = asked.nonEmpty))
  }

  /** What [[kept]] answers the file (by key) from, to tell later that it still would. */
  def keptFrom(key: FileKey): Option[FileDescription] = described.get(key)

  /**
   * Whether [[kept]] still answers the file (by key) at `stamp` from `description`, given the same
   * request of it: nothing of the file was described, found or forgotten since.
   */
  def keepsFrom(key: FileKey, stamp: FileStamp, description: FileDescription): Boolean =
    described.get(key).exists(_ eq description) &&
      formats.get(key).exists(f => f._2.isEmpty && f._1 == stamp) && !unreadable.contains(key)

  /**
   * Whether the file's answer at `stamp` is the one kept, given with no byte read: only then may a
   * look take its stamp from an earlier look, where no change was heard. A file whose bytes are
   * read is statted first, so that what is read and the stamp it is read by are of one moment.
   */
  def knows(stamp: FileStamp, request: NodeRequest): Boolean =
    knownFormat(stamp, request.knownByKey.get(stamp.key)).nonEmpty &&
      described.get(stamp.key).exists(d => d.stamp == stamp && keeps(d, request))

  // Whether the answer kept is still the answer to `request`, if the bytes are the same.
  private def keeps(d: FileDescription, request: NodeRequest): Boolean =
    keeps(d, request, request.knownByKey.get(d.stamp.key))

  // The same, given what the request asks of the file.
  private def keeps(d: FileDescription, request: NodeRequest, asked: Option[KnownFile]): Boolean =
    d.asked == asked &&
      (request.keepsTracked(d.meta) || !request.mayBeCopy(d.meta.fingerprint))

  // The answer under the name the file has now, the same object while the name stays.
  private def named(meta: FileMeta, path: Path): FileMeta =
    if (meta.path == path.toString) meta else meta.copy(path = path.toString)

  // Whether the file starts with `k`'s head, as the file tracked under its key did.
  private def startsAs(path: Path, stamp: FileStamp, k: KnownFile): Boolean =
    k.fingerprint.length <= stamp.size && {
      val channel = FileChannel.open(path, StandardOpenOption.READ)
      try Prefixes.md5(channel, k.fingerprint.length).contains(k.fingerprint)
      finally channel.close()
    }

  /**
   * The file's compression format, if any. Looked at again at each change of its stamp until a
   * line of it is read (a file that starts empty may be a compressor's output a moment later),
   * then once for its key (an endpoint that restarts finds out what the files it reads on are).
   */
  def formatOf(path: Path, stamp: FileStamp, asked: Option[KnownFile]): Option[String] = {
    knownFormat(stamp, asked).getOrElse {
      val found =
        try Compression.of(path)
        catch {
          case e: NoSuchFileException => throw e
          case _: IOException => None // `readable` says why it cannot be read
        }
      formats(stamp.key) = (stamp, found)
      changed(stamp.key)
      found
    }
  }

  // The format found before, if it still holds: a file a line of which was read keeps its own.
  private def knownFormat(stamp: FileStamp, asked: Option[KnownFile]): Option[Option[String]] =
    formats.get(stamp.key).collect { case (s, f) if s == stamp || asked.exists(_.floor > 0) => f }

  /**
   * Whether the stamp can tell a later write from the one it shows: file times tick coarsely (a
   * few ms). A file's last record waits for its flush time to pass.
   */
  def settled(stamp: FileStamp): Boolean = untilSettled(stamp) == 0L

  /**
   * How long until `stamp` is [[settled]] if the file is not written again, at `nowMs`: 0 once
   * it is.
   */
  def untilSettled(stamp: FileStamp, nowMs: Long = clock.millis()): Long =
    math.max(0L, math.max(100L, grouping.fold(0L)(_.flushMs)) + 1L - stamp.quietMs(nowMs))

  /** `describe`'s answer, or the file reported unreadable when reading it fails. */
  private def readable(path: Path, stamp: FileStamp)(
      describe: => Option[FileMeta]): Option[FileMeta] = {
    val meta =
      try describe
      catch {
        case e: NoSuchFileException => throw e
        case e: IOException =>
          Some(FileMeta.unreadable(path.toString, stamp, FileListing.reason(e)))
      }
    val now = meta.flatMap(_.unreadable)
    if (now != unreadable.get(stamp.key)) {
      now match {
        case Some(why) =>
          // The driver says it where users look; said here too for the node's own log.
          log.info(s"aof: cannot read $path ($why); its position is kept until it can be read")
          unreadable(stamp.key) = why
          changed(stamp.key)
        case None if meta.nonEmpty =>
          log.info(s"aof: $path can be read again")
          unreadable -= stamp.key
          changed(stamp.key)
        case None => ()
      }
    }
    meta
  }

  /**
   * The answer kept for the file, or a new one. One for a file not tracked, or another file under
   * a tracked key (an inode given again), holds while no tracked file starts like it: only then
   * can it be a copy. Whether it is one depends on every file of the request, not only on what
   * was known under its key. A compressed file costs a decompression per answer, so that a node
   * with many of them (at a query's start) still answers in time from the second trigger on.
   */
  private def describeAgain(
      path: Path,
      stamp: FileStamp,
      format: Option[String],
      asked: Option[KnownFile],
      request: NodeRequest): Option[FileMeta] = {
    val earlier = described.get(stamp.key).filter(d => keeps(d, request) && holds(d, path, stamp))
    earlier match {
      case Some(d) =>
        // The same answer, the same object while its name stays: comparing it ends there.
        val meta = named(d.meta, path)
        if (d.stamp != stamp && settled(stamp)) {
          described(stamp.key) = d.copy(stamp = stamp, meta = meta)
          changed(stamp.key)
        }
        Some(meta)
      case None =>
        val found = read(path, stamp, format, request)
        for ((m, compressedTail) <- found
          if settled(stamp) && m.copyOf.isEmpty && m.copyOfRetired.isEmpty) {
          described(stamp.key) = FileDescription(stamp, asked, m, compressedTail)
          changed(stamp.key)
        }
        found.map(_._1)
    }
  }

  /**
   * Whether the file holds the bytes `d` described. A rename changes only a file's ctime, and a
   * rotation renames every rotated file: a compressed file's last bytes end what it decompresses
   * to (gzip's hold its CRC-32 and length), so while they, its size and its mtime stay, its lines
   * do too, and it is not decompressed again (with `rotate 30`, thirty files at every rotation).
   */
  private def holds(d: FileDescription, path: Path, stamp: FileStamp): Boolean =
    d.stamp == stamp || d.compressedTail.nonEmpty &&
      d.stamp.copy(changedNanos = stamp.changedNanos) == stamp && {
        val channel = FileChannel.open(path, StandardOpenOption.READ)
        try stat(path).key == stamp.key && describer.tail(channel, stamp.size) == d.compressedTail
        finally channel.close()
      }

  /** The file described from its bytes; for a compressed file, with its compressed bytes' tail. */
  private def read(
      path: Path,
      stamp: FileStamp,
      format: Option[String],
      request: NodeRequest): Option[(FileMeta, Option[Fingerprint])] = {
    val channel = FileChannel.open(path, StandardOpenOption.READ)
    // A rotation renames files in quick succession: the name stated a moment ago may be another
    // file's by the time it is opened, and that file's bytes are not this key's.
    try {
      if (stat(path).key != stamp.key) None
      else if (Compression.of(channel) != format) {
        // The format known for a tracked key was an earlier file's: a deleted file's inode is
        // soon another's (a rotation's .gz). Looked at again in the listing's next pass.
        formats -= stamp.key
        changed(stamp.key)
        None
      } else {
        format.filter(Compression.decompresses) match {
          case None => Some(describer.describe(channel, path, stamp, request) -> None)
          case Some(f) =>
            val compressedTail = describer.tail(channel, stamp.size)
            decompressions += 1
            val lines = Decompressed.open(channel, f)
            try
              Some(describer.describe(lines, path, stamp, request) -> compressedTail)
            finally lines.close()
        }
      }
    } finally channel.close()
  }
}
