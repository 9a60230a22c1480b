package com.hx.spark.sql.connector.aof.files

import java.io.IOException
import java.nio.channels.FileChannel
import java.nio.file.{
  AccessDeniedException,
  FileSystemException,
  Files,
  NoSuchFileException,
  NotDirectoryException,
  Path,
  StandardOpenOption
}
import java.util.regex.Pattern

import scala.collection.JavaConverters._
import scala.collection.mutable

import org.slf4j.LoggerFactory

/**
 * A node's view of its directories (one, or those a [[DirectoryGlob]] names): the files whose
 * names match the pattern, plus tracked files that were renamed to names it no longer matches (so
 * they are drained). It only ever looks inside its own directories; the driver's request can name
 * keys and positions, never paths.
 *
 * It remembers where each file's last complete line ended, so that a file without newlines is
 * scanned once rather than on every trigger. With a [[RecordRule]] it reports where complete
 * records end instead ([[RecordEnds]]), found from the driver's position. A gzip file is looked
 * at as the bytes it decompresses to ([[Gunzipped]]): a rotation's `compress` may leave the
 * unread end of a tracked file only there. Files of other compression formats are never read.
 *
 * What it cannot see is never reported as gone: a file it cannot read is reported unreadable (the
 * driver keeps its position), and a directory it cannot list fails the whole look with
 * [[UnlistedDirectory]] (the driver keeps the host's offsets). Either would otherwise be read
 * again from its start once visible, under a new id. A directory that does not exist holds no
 * files.
 *
 * @param listed each listing, passed through before its files are looked at: tests place a
 *               rotation there, where no real one can be made to land on demand
 */
final class DirectoryScanner(
    directory: Path,
    fileNameRegex: String,
    sampleLength: Int,
    records: Option[RecordRule] = None,
    listed: Seq[Path] => Seq[Path] = identity) {
  import Compression.Gzip
  import DirectoryScanner.{reason, Scan}

  private val glob = DirectoryGlob.of(directory)
  private val log = LoggerFactory.getLogger(getClass)
  private val pattern = Pattern.compile(fileNameRegex)
  private val scanned = mutable.Map.empty[FileKey, Scan]
  // What each file looked like, and what was answered for it: answered again without reading
  // while its stamp and the driver's question stay the same (most files, most triggers).
  private val described = mutable.Map.empty[FileKey, (FileStamp, Option[KnownFile], FileMeta)]
  // Files that could not be read, with why: each is logged when it starts and when it ends.
  private val unreadable = mutable.Map.empty[FileKey, String]
  // What each file was found to be (a compression format, or none), at which stamp.
  private val formats = mutable.Map.empty[FileKey, (FileStamp, Option[String])]

  /** The files to report, given what the driver tracks on this node. */
  def scan(known: Seq[KnownFile]): Seq[FileMeta] = synchronized {
    val knownByKey = known.map(k => k.key -> k).toMap
    // Whether a file not tracked may be a copy of a tracked one, by its head: it starts with a
    // tracked file's head, or with the shorter head of one tracked while shorter than the sample.
    lazy val copiedHeads = known.collect { case k if k.floor > 0 => k.fingerprint }.toSet
    lazy val shortHeads = known.exists(k => k.floor > 0 && k.fingerprint.length < sampleLength)
    val mayBeCopy = (head: Fingerprint) => shortHeads || copiedHeads.contains(head)
    val seen = mutable.Set.empty[FileKey]
    val lookedAt = mutable.Set.empty[FileKey]
    var seenKnown = 0
    // Whether a tracked key was found holding content with another head (an inode reused).
    var replacedKnown = false
    def describeAll(paths: Seq[Path], wanted: (Path, FileKey) => Boolean): Seq[FileMeta] =
      paths.flatMap { path =>
        try {
          val stamp = FileStamp.of(path)
          val key = stamp.key
          val asked = knownByKey.get(key)
          if (seen.contains(key) || !stamp.regular || !wanted(path, key)) None
          else {
            lookedAt += key
            val format = formatOf(path, stamp, asked)
            val meta =
              if (format.isEmpty || format.contains(Gzip) ||
                // A compressor's output just begun waits for its magic, as an empty file waits.
                (format.contains(Compression.Incomplete) && asked.nonEmpty)) {
                readable(path, stamp)(describeAgain(path, stamp, format, asked, known, mayBeCopy))
              } else None
            // Seen only once described: one renamed away meanwhile is looked for again.
            if (meta.nonEmpty) {
              seen += key
              if (asked.nonEmpty) seenKnown += 1
            }
            replacedKnown ||= asked.exists { k =>
              meta.exists(m =>
                m.unreadable.isEmpty && k.fingerprint != m.probe.getOrElse(m.fingerprint))
            }
            meta
          }
        } catch {
          case _: NoSuchFileException => None // renamed or removed since it was listed
          case e: IOException =>
            // Without its key nothing can be said of the file, not even that it is still there.
            throw new UnlistedDirectory(s"$path cannot be looked at (${reason(e)})")
        }
      }
    val matched = (p: Path, key: FileKey) =>
      knownByKey.contains(key) || pattern.matcher(p.getFileName.toString).matches()
    def look(): Seq[FileMeta] = {
      seen.clear()
      seenKnown = 0
      replacedKnown = false
      var metas = describeAll(listDirectory(), matched)
      // A rotation renaming files while we list can hide a tracked file from one listing; taken
      // as deleted, it would be read again from 0 when it shows up under its next name.
      var passes = 0
      while (passes < 3 && seenKnown < knownByKey.size) {
        passes += 1
        metas ++= describeAll(listDirectory(), (_, key) => knownByKey.contains(key))
      }
      metas
    }
    // A tracked file gone, or its key now another file's, is forgotten by the driver unless this
    // answer names its copy; a look can miss that copy: described half-written before the
    // original was deleted later in the look, or renamed while listed (untracked files are not
    // looked for again). A rotation deletes a file only once its copy is whole, and renames in
    // a moment: a second look sees the copy.
    var metas = look()
    if (seenKnown < knownByKey.size || replacedKnown) metas = look()
    metas = metas.map(m => if (copiesWhatHolds(m, knownByKey, metas)) m.copy(copyOf = None) else m)
    scanned --= scanned.keys.filterNot(seen.contains).toList
    described --= described.keys.filterNot(seen.contains).toList
    unreadable --= unreadable.keys.filterNot(seen.contains).toList
    formats --= formats.keys.filterNot(lookedAt.contains).toList
    metas
  }

  /**
   * Whether `m` is taken for a copy only by the shorter head of a file tracked while shorter than
   * the sample, which still holds those bytes: a file that merely starts alike (a header) is then
   * new, where taken for a copy it would wait for as long as that file holds.
   */
  private def copiesWhatHolds(
      m: FileMeta,
      knownByKey: Map[FileKey, KnownFile],
      metas: Seq[FileMeta]): Boolean =
    m.copyOf.flatMap(knownByKey.get).exists { k =>
      k.fingerprint.length < sampleLength && metas.exists { o =>
        o.key == k.key && (o.unreadable.nonEmpty ||
          (k.floor <= o.size && o.probe.getOrElse(o.fingerprint) == k.fingerprint &&
            k.tail.forall(t => o.tailAtFloor.contains(t))))
      }
    }

  /**
   * The file's compression format, if any. Looked at again at each change of its stamp until a
   * line of it is read (a file that starts empty may be a compressor's output a moment later),
   * then once for its key (an endpoint that restarts finds out what the files it reads on are).
   */
  private def formatOf(path: Path, stamp: FileStamp, asked: Option[KnownFile]): Option[String] = {
    val earlier = formats.get(stamp.key)
    val format = earlier.collect { case (s, f) if s == stamp || asked.exists(_.floor > 0) => f }
    format.getOrElse {
      val found =
        try Compression.of(path)
        catch {
          case e: NoSuchFileException => throw e
          case _: IOException => None // `readable` says why it cannot be read
        }
      val neverRead = found.exists(f => f != Gzip && f != Compression.Incomplete)
      if (neverRead && !earlier.exists(_._2 == found)) {
        log.info(s"aof: $path is ${found.get}-compressed; not read")
      }
      formats(stamp.key) = (stamp, found)
      found
    }
  }

  /** `describe`'s answer, or the file reported unreadable when reading it fails. */
  private def readable(path: Path, stamp: FileStamp)(
      describe: => Option[FileMeta]): Option[FileMeta] = {
    val meta =
      try describe
      catch {
        case e: NoSuchFileException => throw e
        case e: IOException =>
          Some(FileMeta.unreadable(path.toString, stamp, reason(e)))
      }
    val now = meta.flatMap(_.unreadable)
    if (now != unreadable.get(stamp.key)) {
      now match {
        case Some(why) =>
          // The driver says it where users look; said here too for the node's own log.
          log.info(s"aof: cannot read $path ($why); its position is kept until it can be read")
          unreadable(stamp.key) = why
        case None if meta.nonEmpty =>
          log.info(s"aof: $path can be read again")
          unreadable -= stamp.key
        case None => ()
      }
    }
    meta
  }

  /**
   * The answer kept for the file, or a new one. One for a file not tracked holds while no tracked
   * file starts like it: only then can it be a copy. A gzip file costs a decompression per answer,
   * so that a node with many of them (at a query's start) still answers in time from the second
   * trigger on.
   */
  private def describeAgain(
      path: Path,
      stamp: FileStamp,
      format: Option[String],
      asked: Option[KnownFile],
      known: Seq[KnownFile],
      mayBeCopy: Fingerprint => Boolean): Option[FileMeta] = {
    val earlier = described.get(stamp.key).collect {
      case (s, question, meta)
          if s == stamp && question == asked && (asked.nonEmpty || !mayBeCopy(meta.fingerprint)) =>
        // The same answer, the same object while its name stays: comparing it ends there.
        if (meta.path == path.toString) meta else meta.copy(path = path.toString)
    }
    earlier.orElse {
      val meta = describe(path, stamp, format, asked, known)
      // File times tick coarsely (a few ms): only a stamp older than a tick can tell a later
      // write from the one it shows. A file's last record waits for its flush time to pass.
      val settled = quietMs(stamp) > math.max(100L, records.fold(0L)(_.flushMs))
      for (m <- meta if settled && m.copyOf.isEmpty) {
        described(stamp.key) = (stamp, asked, m)
      }
      meta
    }
  }

  /** Milliseconds since the file was last written or changed. */
  private def quietMs(stamp: FileStamp): Long =
    System.currentTimeMillis() - math.max(stamp.modifiedNanos, stamp.changedNanos) / 1000000L

  /**
   * Whether the directory is there (for a pattern, where its wildcards start): a node without it
   * has no files yet, not unknown ones.
   */
  def directoryExists: Boolean = Files.isDirectory(glob.root)

  private def listDirectory(): Seq[Path] =
    if (!glob.isPattern) list(directory, fromPattern = false)
    else glob.directories().flatMap(list(_, fromPattern = true))

  /**
   * The directory's entries. One a pattern named may go before it is listed (a pod's, say): its
   * files went with it. The `path` directory itself must be a directory when it exists.
   */
  private def list(dir: Path, fromPattern: Boolean): Seq[Path] = {
    val stream =
      try Files.list(dir)
      catch {
        case _: NoSuchFileException => return Seq.empty
        case _: NotDirectoryException if fromPattern => return Seq.empty
        case _: NotDirectoryException =>
          throw new UnlistedDirectory(s"$dir is not a directory")
        case e: IOException =>
          throw new UnlistedDirectory(s"$dir cannot be listed (${reason(e)})")
      }
    // Paths compare by their bytes, without the String per comparison a sort by name costs.
    try listed(stream.sorted().iterator().asScala.toVector)
    finally stream.close()
  }

  private def describe(
      path: Path,
      stamp: FileStamp,
      format: Option[String],
      asked: Option[KnownFile],
      known: Seq[KnownFile]): Option[FileMeta] = {
    val channel = FileChannel.open(path, StandardOpenOption.READ)
    // A rotation renames files in quick succession: the name stated a moment ago may be another
    // file's by the time it is opened, and that file's bytes are not this key's.
    try {
      if (FileKey.of(path) != stamp.key) None
      else if (Compression.of(channel) != format) {
        // The format known for a tracked key was an earlier file's: a deleted file's inode is
        // soon another's (a rotation's .gz). Looked at again in the listing's next pass.
        formats -= stamp.key
        None
      } else if (!format.contains(Gzip)) Some(describeOpen(channel, path, stamp, asked, known))
      else {
        val lines = Gunzipped.open(channel)
        try Some(describeOpen(lines, path, stamp, asked, known))
        finally lines.close()
      }
    } finally channel.close()
  }

  private def describeOpen(
      channel: FileChannel,
      path: Path,
      stamp: FileStamp,
      asked: Option[KnownFile],
      known: Seq[KnownFile]): FileMeta = {
    val key = stamp.key
    val (size, fingerprint) = Prefixes.sizeAndHead(channel, sampleLength)
    val probe = asked.map(_.fingerprint.length).filter(_ < fingerprint.length).map { length =>
      Prefixes.md5(channel, length).getOrElse(Fingerprint(length, ""))
    }
    val tailAtFloor = asked.filter(_.floor <= size).flatMap(k => tail(channel, k.floor))
    // The driver's floor holds only for the content it was planned against: a replaced or
    // truncated file is scanned from its start.
    val floor = asked
      .filter(k => k.floor <= size && probe.getOrElse(fingerprint) == k.fingerprint)
      .filter(k => k.tail.forall(t => tailAtFloor.contains(t)))
      .fold(0L)(_.floor)
    val ((lineEnd, tailAtLineEnd), cuts) = records match {
      case None => (lineEndAfter(channel, key, size, fingerprint, floor), Nil)
      case Some(rule) =>
        // A file first seen is looked at whole: `starting.offsets` latest starts at its end.
        val window = asked.flatMap(_ => rule.scanWindow)
        val flushed = quietMs(stamp) >= rule.flushMs
        val found = RecordEnds.scan(channel, floor, size, rule, flushed, window)
        ((found.recordEnd, tail(channel, found.recordEnd)), found.cuts)
    }
    // A tracked key may now be another file's (an inode reused): that one may be a copy too.
    val copyOf =
      if (asked.exists(_.fingerprint == probe.getOrElse(fingerprint))) None
      else {
        val heads = mutable.Map(fingerprint.length -> Option(fingerprint))
        def head(length: Long) =
          heads.getOrElseUpdate(
            length,
            Some(length).filter(_ <= size).flatMap(Prefixes.md5(channel, _)))
        known
          .filter(k => k.key != key && isCopy(channel, size, head, k))
          .sortBy(-_.floor)
          .headOption
          .map(_.key)
      }
    FileMeta(
      path.toString,
      key,
      size,
      lineEnd,
      fingerprint,
      probe,
      asked.map(_.floor),
      tailAtFloor,
      tailAtLineEnd,
      copyOf,
      cuts = cuts)
  }

  /**
   * The end of the last complete line at or after `floor`, and the tail before it. What an
   * earlier call scanned is not scanned again while the file still holds what it held then: a
   * long line being written costs one pass in all, not one per trigger.
   */
  private def lineEndAfter(
      channel: FileChannel,
      key: FileKey,
      size: Long,
      head: Fingerprint,
      floor: Long): (Long, Option[Fingerprint]) = {
    val earlier = scanned.get(key).filter { s =>
      s.from <= floor && floor <= s.size && s.size <= size && samePrefix(s.head, head, channel) &&
      s.tails.forall { case (end, t) => tail(channel, end) == t }
    }
    val found = Prefixes
      .lastLineEnd(channel, earlier.fold(floor)(_.size), size)
      .orElse(earlier.flatMap(_.lastEnd))
    val tails = (size +: found.toSeq).map(end => end -> tail(channel, end))
    scanned(key) = Scan(earlier.fold(floor)(_.from), size, found, head, tails)
    val lineEnd = found.filter(_ >= floor).getOrElse(floor)
    (lineEnd, tails.collectFirst { case (`lineEnd`, t) => t }.getOrElse(tail(channel, lineEnd)))
  }

  private def tail(channel: FileChannel, end: Long): Option[Fingerprint] =
    Prefixes.tail(channel, end, sampleLength.toLong)

  /**
   * Whether this file is a copy of `k`, or the start of one: it begins with `k`'s head, and
   * where it reaches `k`'s position it holds the bytes `k` had before it. A copy is written
   * front to back, so one caught half-written is shorter than `k`'s position. `k` tracked while
   * shorter than the sample is known by a shorter head, which a file that merely shares its
   * first lines (a header) may start with too: such a file is reported a copy only once `k` no
   * longer holds those bytes (a rotation compressed it), never to wait on `k`.
   *
   * @param head the MD5 of this file's first bytes, of a given length; None when it is shorter
   */
  private def isCopy(
      channel: FileChannel,
      size: Long,
      head: Long => Option[Fingerprint],
      k: KnownFile): Boolean =
    k.floor > 0 && k.fingerprint.length > 0 && head(k.fingerprint.length).contains(k.fingerprint) &&
      (size < k.floor || k.tail.forall(t => tail(channel, k.floor).contains(t)))

  private def samePrefix(old: Fingerprint, now: Fingerprint, channel: FileChannel): Boolean =
    if (old.length == now.length) old == now
    else Prefixes.md5(channel, old.length).contains(old)
}

private object DirectoryScanner {

  /** What failed, in the system's words: "Permission denied", "Input/output error". */
  def reason(e: IOException): String = e match {
    case _: AccessDeniedException => "Permission denied"
    case f: FileSystemException if f.getReason != null => f.getReason
    case other => other.toString
  }

  /**
   * What a scan of `[from, size)` found: the end of the last line there, if any. It holds while
   * the file keeps its head and the bytes before each of `tails`' positions; a file rewritten in
   * place under the same head shows there.
   */
  final case class Scan(
      from: Long,
      size: Long,
      lastEnd: Option[Long],
      head: Fingerprint,
      tails: Seq[(Long, Option[Fingerprint])])
}
