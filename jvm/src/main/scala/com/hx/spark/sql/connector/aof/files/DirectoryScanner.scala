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
import java.time.Clock
import java.util.regex.Pattern

import scala.collection.JavaConverters._
import scala.collection.mutable

import org.slf4j.LoggerFactory

/**
 * A node's view of its directories (those its paths name, [[SourceFiles]]): the files whose
 * names match a path and are not excluded, plus tracked files renamed to names that are not (so
 * they are drained). It only ever looks inside its own directories; the driver's request can name
 * keys and positions, never paths.
 *
 * Each file is described by a [[FileDescriber]], and described again only when its bytes or the
 * driver's question change. A gzip file is looked at as the bytes it decompresses to
 * ([[Gunzipped]]): a rotation's `compress` may leave the unread end of a tracked file only there.
 * Files of other compression formats are never read.
 *
 * What it cannot see is never reported as gone: a file it cannot read is reported unreadable (the
 * driver keeps its position), and a directory it cannot list fails the whole look with
 * [[UnlistedDirectory]] (the driver keeps the host's offsets). Either would otherwise be read
 * again from its start once visible, under a new id. A directory that does not exist holds no
 * files.
 *
 * It does the looking: listing, reading and what it keeps between looks. What it decides from a
 * look is decided elsewhere: whether to look again by the [[NodeQuestion]], whether a file is
 * the same or a copy by the [[FileIdentity]] (and [[ShortHeadCopies]] for files known by a short
 * head).
 *
 * @param listed each listing, passed through before its files are looked at: tests place a
 *               rotation there, where no real one can be made to land on demand
 * @param stat   how a file's key, size and times are read: tests give a file another's freed
 *               inode, which no filesystem does on demand
 * @param clock  what a file's times are compared with: how long it has been quiet decides
 *               whether its answer is kept and whether its last record is flushed
 * @param identity how a file is told from what was known of it (`md5.check.enabled`)
 * @param ignoreOlderMs how long a file not tracked must have gone unmodified to be left unread
 *               (`ignore.older`, [[OldFiles]])
 */
final class DirectoryScanner(
    files: SourceFiles,
    sampleLength: Int,
    records: Option[RecordRule] = None,
    listed: Seq[Path] => Seq[Path] = Predef.identity,
    batchCuts: Option[BatchCuts] = None,
    stat: Path => FileStamp = FileStamp.of,
    clock: Clock = Clock.systemUTC(),
    identity: FileIdentity = FileIdentity(checked = true),
    ignoreOlderMs: Option[Long] = None) {
  import Compression.Gzip
  import DirectoryScanner.{reason, Description}

  private val log = LoggerFactory.getLogger(getClass)
  private val describer = new FileDescriber(sampleLength, records, batchCuts, identity, clock)
  private val compressed = (key: FileKey) => formats.get(key).exists(_._2.nonEmpty)
  private val shortHeads = new ShortHeadCopies(sampleLength, identity, compressed)
  private val newCopies = new NewFileCopies(sampleLength, identity, compressed)
  // What each file looked like, and what was answered for it: answered again without reading
  // while its bytes and the driver's question stay the same (most files, most triggers).
  private val described = mutable.Map.empty[FileKey, Description]
  // Files that could not be read, with why: each is logged when it starts and when it ends.
  private val unreadable = mutable.Map.empty[FileKey, String]
  // What each file was found to be (a compression format, or none), at which stamp.
  private val formats = mutable.Map.empty[FileKey, (FileStamp, Option[String])]
  // Directories the file-name regex matched, each warned about once.
  private val matchedDirectories = mutable.Set.empty[Path]
  private val old = new OldFiles(ignoreOlderMs, sampleLength, clock, stat)
  // Gzip files decompressed so far: each costs a pass over all a file holds.
  private[files] var decompressions: Long = 0L
  @volatile private var ignoredByLastScan = 0

  /** How many files the last scan left unread for `ignore.older`. */
  def ignored: Int = ignoredByLastScan

  /**
   * The files to report, given what the driver tracks on this node and what it retired (files no
   * longer tracked whose copy may still show up, by file id). Looked at twice when the first
   * look may have missed a copy ([[NodeQuestion.mayMissCopies]]), or caught a file and its copy
   * both new, a rotation perhaps under way ([[NewFileCopies]]).
   */
  def scan(known: Seq[KnownFile], retired: Map[String, KnownFile] = Map.empty): Seq[FileMeta] =
    synchronized {
      val question = new NodeQuestion(known, retired, sampleLength, identity)
      val first = look(question)
      // The first look's answer only when it is not looked at again.
      val firstAnswer = Some(first).filterNot(l => question.mayMissCopies(l.found))
      val (last, metas) = firstAnswer.map(answer(_, question)) match {
        case Some((metas, false)) => (first, metas)
        case _ =>
          val again = look(question)
          (again, answer(again, question)._1)
      }
      describer.keepOnly(last.seen.contains)
      described --= described.keys.filterNot(last.seen.contains).toList
      unreadable --= unreadable.keys.filterNot(last.seen.contains).toList
      val lookedAt = first.lookedAt ++ last.lookedAt
      formats --= formats.keys.filterNot(lookedAt.contains).toList
      old.keepOnly(lookedAt.contains)
      ignoredByLastScan = last.leftOld + metas.count(_.ignored)
      inWriteOrder(metas, last)
    }

  /**
   * Oldest write first, a copy before a file written in the same tick of the file clock (the
   * file copytruncate cut), then the listing's order. Files new to the planner get their serials
   * in this order, and a batch reads a host's files by serial: in the order they were written.
   */
  private def inWriteOrder(metas: Seq[FileMeta], look: Look): Seq[FileMeta] =
    metas.sortBy { m =>
      (
        look.stamps.get(m.key).fold(0L)(_.modifiedNanos),
        m.copyOf.isEmpty && m.copyOfRetired.isEmpty)
    }

  /**
   * A look's files, each with the tracked or new file it is a copy of, if any; and whether one is
   * a copy of a new file.
   */
  private def answer(look: Look, question: NodeQuestion): (Seq[FileMeta], Boolean) = {
    val byKey = look.found.map(m => m.key -> m).toMap
    val metas = look.found.map(m => m.copy(copyOf = shortHeads.copyOf(m, question, byKey)))
    val copies = newCopies.of(metas, question, key => look.stamps.get(key).exists(!settled(_)))
    (metas.map(m => copies.get(m.key).fold(m)(o => m.copy(copyOf = Some(o)))), copies.nonEmpty)
  }

  /**
   * One look: the listing's files described, then listed again (up to three times) while a
   * tracked file is missing ([[NodeQuestion.missesTracked]]), for the tracked files only.
   */
  private def look(question: NodeQuestion): Look = {
    val look = new Look(question)
    look.describe(listDirectory(), (readBy, key) => readBy.nonEmpty || question.tracks(key))
    var passes = 0
    while (passes < 3 && question.missesTracked(look.found)) {
      passes += 1
      look.describe(listDirectory(), (_, key) => question.tracks(key))
    }
    look
  }

  /** What one look found: each file described once, by key, and every key it looked at. */
  private final class Look(question: NodeQuestion) {
    private var metas = Vector.empty[FileMeta]
    val seen: mutable.Set[FileKey] = mutable.Set.empty
    // Each file's stamp as it was described.
    val stamps: mutable.Map[FileKey, FileStamp] = mutable.Map.empty
    val lookedAt: mutable.Set[FileKey] = mutable.Set.empty
    // Compressed files left unread for `ignore.older`: not reported.
    var leftOld = 0

    def found: Seq[FileMeta] = metas

    /**
     * @param wanted whether a file is looked at, given the regex the source reads it by (if any)
     *               and its key
     */
    def describe(
        listing: Seq[(Path, Option[Pattern])],
        wanted: (Option[Pattern], FileKey) => Boolean): Unit =
      listing.foreach { case (path, readBy) =>
        try {
          val stamp = stat(path)
          val key = stamp.key
          if (!stamp.regular) readBy.foreach(warnIfDirectory(path, _))
          else if (!seen.contains(key) && wanted(readBy, key)) {
            lookedAt += key
            if (formatOf(path, stamp, None).contains(Gzip) && old.leftOut(path, stamp, question)) {
              seen += key
              leftOld += 1
            } else {
              // Seen only once described: one renamed away meanwhile is looked for again.
              describeFile(path, stamp, question).foreach { meta =>
                seen += key
                stamps(key) = stamp
                metas :+= meta
              }
            }
          }
        } catch {
          case _: NoSuchFileException => () // renamed or removed since it was listed
          case e: IOException =>
            // Without its key nothing can be said of the file, not even that it is still there.
            throw new UnlistedDirectory(s"$path cannot be looked at (${reason(e)})")
        }
      }
  }

  /**
   * The file's answer; none for a compressed file never read, or one gone or replaced since. One
   * not tracked and not modified for `ignore.older` is `ignored`, unless it is a copy.
   */
  private def describeFile(
      path: Path,
      stamp: FileStamp,
      question: NodeQuestion): Option[FileMeta] = {
    val asked = question.knownByKey.get(stamp.key)
    val format = formatOf(path, stamp, asked)
    if (format.isEmpty || format.contains(Gzip) ||
      // A compressor's output just begun waits for its magic, as an empty file waits.
      (format.contains(Compression.Incomplete) && asked.nonEmpty)) {
      readable(path, stamp)(describeAgain(path, stamp, format, asked, question))
        .map(old.judged(_, stamp, tracked = asked.nonEmpty))
    } else None
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
      question: NodeQuestion): Option[FileMeta] = {
    val earlier = described.get(stamp.key).filter { d =>
      d.question == asked && (asked.nonEmpty || !question.mayBeCopy(d.meta.fingerprint)) &&
      holds(d, path, stamp)
    }
    earlier match {
      case Some(d) =>
        // The same answer, the same object while its name stays: comparing it ends there.
        val meta = if (d.meta.path == path.toString) d.meta else d.meta.copy(path = path.toString)
        if (d.stamp != stamp && settled(stamp)) {
          described(stamp.key) = d.copy(stamp = stamp, meta = meta)
        }
        Some(meta)
      case None =>
        val found = describe(path, stamp, format, asked, question.known, question.retired)
        for ((m, gzipTail) <- found
          if settled(stamp) && m.copyOf.isEmpty && m.copyOfRetired.isEmpty) {
          described(stamp.key) = Description(stamp, asked, m, gzipTail)
        }
        found.map(_._1)
    }
  }

  /**
   * Whether the file holds the bytes `d` described. A rename changes only a file's ctime, and a
   * rotation renames every rotated file: a gzip file's last bytes hold the CRC-32 and length of
   * all it decompresses to, so while they, its size and its mtime stay, its lines do too, and it
   * is not decompressed again (with `rotate 30`, thirty files at every rotation).
   */
  private def holds(d: Description, path: Path, stamp: FileStamp): Boolean =
    d.stamp == stamp || d.gzipTail.nonEmpty &&
      d.stamp.copy(changedNanos = stamp.changedNanos) == stamp && {
        val channel = FileChannel.open(path, StandardOpenOption.READ)
        try stat(path).key == stamp.key && describer.tail(channel, stamp.size) == d.gzipTail
        finally channel.close()
      }

  /**
   * Whether the stamp can tell a later write from the one it shows: file times tick coarsely (a
   * few ms). A file's last record waits for its flush time to pass.
   */
  private def settled(stamp: FileStamp): Boolean =
    stamp.quietMs(clock.millis()) > math.max(100L, records.fold(0L)(_.flushMs))

  /**
   * Whether a path's directory is there (for a pattern, where its wildcards start): a node
   * without any has no files yet, not unknown ones.
   */
  def directoryExists: Boolean = files.roots.exists(Files.isDirectory(_))

  /** A directory a path's regex matches is not read: said once, as the likely fix. */
  private def warnIfDirectory(path: Path, regex: Pattern): Unit =
    if (Files.isDirectory(path) && matchedDirectories.add(path)) {
      log.warn(
        s"aof: $path matches the file-name regex '$regex' but is a directory, and " +
          s"directories are not read. To read the files in it, end 'path' with '$path/.*'.")
    }

  /** Each file listed, with the regex the source reads it by, if it does. */
  private def listDirectory(): Seq[(Path, Option[Pattern])] =
    files.directories().flatMap { d =>
      list(d.path, fromPattern = !d.literal).map(p => p -> d.readBy(p, files))
    }

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
      known: Seq[KnownFile],
      retired: Map[String, KnownFile]): Option[(FileMeta, Option[Fingerprint])] = {
    val channel = FileChannel.open(path, StandardOpenOption.READ)
    // A rotation renames files in quick succession: the name stated a moment ago may be another
    // file's by the time it is opened, and that file's bytes are not this key's.
    try {
      if (stat(path).key != stamp.key) None
      else if (Compression.of(channel) != format) {
        // The format known for a tracked key was an earlier file's: a deleted file's inode is
        // soon another's (a rotation's .gz). Looked at again in the listing's next pass.
        formats -= stamp.key
        None
      } else if (!format.contains(Gzip)) {
        Some(describer.describe(channel, path, stamp, asked, known, retired) -> None)
      } else {
        val gzipTail = describer.tail(channel, stamp.size)
        decompressions += 1
        val lines = Gunzipped.open(channel)
        try Some(describer.describe(lines, path, stamp, asked, known, retired) -> gzipTail)
        finally lines.close()
      }
    } finally channel.close()
  }
}

private object DirectoryScanner {

  /** What failed, in the system's words: "Permission denied", "Input/output error". */
  def reason(e: IOException): String = e match {
    case _: AccessDeniedException => "Permission denied"
    case f: FileSystemException if f.getReason != null => f.getReason
    case other => other.toString
  }

  /**
   * The answer for a file with the stamp it was given at and the driver's question; for a gzip
   * file, with its compressed bytes' tail.
   */
  final case class Description(
      stamp: FileStamp,
      question: Option[KnownFile],
      meta: FileMeta,
      gzipTail: Option[Fingerprint])
}
