package com.hx.spark.sql.connector.aof.files.scan

import java.io.IOException
import java.nio.channels.FileChannel
import java.nio.file.Path
import java.time.Clock

import scala.annotation.tailrec
import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, FileStamp, Fingerprint, KnownFile, NodeRequest, Prefixes
}
import com.hx.spark.sql.connector.aof.files.lines.{LineEnding, LineReader}
import com.hx.spark.sql.connector.aof.files.records.{BatchCuts, RecordEnds, RecordRule}

/**
 * What one file holds, as a node answers the driver: its size and head, the end of its last
 * complete line (or record), the tails the driver checks its position by, and which tracked file
 * it is a copy of, if any. Read from a channel over the file's bytes (a compressed file's, over
 * what it decompresses to); which files to read, and when, is the [[DirectoryScanner]]'s.
 *
 * It remembers where each file's last complete line ended, so that a file without newlines is
 * scanned once rather than on every trigger.
 *
 * @param batchCuts where batches may end early, when a byte limit bounds them
 * @param ending    how the file's bytes are lines
 */
private[files] final class FileDescriber(
    sampleLength: Int,
    grouping: Option[RecordRule],
    batchCuts: Option[BatchCuts],
    identity: FileIdentity,
    clock: Clock = Clock.systemUTC(),
    ending: LineEnding = LineEnding.Default) {
  import FileDescriber.Scan

  private val scanned = mutable.Map.empty[FileKey, Scan]

  /** Forgets what was scanned of files not `kept`. */
  def keepOnly(kept: FileKey => Boolean): Unit =
    scanned --= scanned.keysIterator.filterNot(kept).toList

  /**
   * The answer for the file `stamp` was taken of, read through `channel`, given the driver's
   * request: what it asks of the file (if it is tracked), every file tracked on the node and
   * every file it retired, by file id (of any of which it may be a copy). With a [[RecordRule]], where
   * complete records end ([[RecordEnds]]), from the driver's position.
   *
   * The answer is read at several places, one after another, and must be of one state of the
   * file. One cut short meanwhile (logrotate's `copytruncate`) would be described by two: its old
   * size with its new head, bytes it never held planned; or its old size and head with none of
   * its old lines, its bytes counted lost where its copy holds them. So a file found shorter, or
   * shorter than its head, or with another head (written again past its old size), once
   * described is described again, as it is now.
   */
  @tailrec
  def describe(
      channel: FileChannel,
      path: Path,
      stamp: FileStamp,
      request: NodeRequest,
      attempts: Int = 3): FileMeta = {
    val size = channel.size()
    val meta = Prefixes
      .md5(channel, math.min(sampleLength.toLong, size))
      .map(head => describeOnce(channel, path, stamp, request, size, head))
      .filter { m =>
        val head = m.fingerprint
        channel.size() >= size && FileIdentity.sameHead(head, Prefixes.md5(channel, head.length))
      }
    meta match {
      case Some(m) => m
      case None if attempts > 1 =>
        describe(channel, path, stamp, request, attempts - 1)
      case None => throw new IOException("it kept shrinking while it was read")
    }
  }

  /** The answer for the file of `size` bytes that begins with `fingerprint`. */
  private def describeOnce(
      channel: FileChannel,
      path: Path,
      stamp: FileStamp,
      request: NodeRequest,
      size: Long,
      fingerprint: Fingerprint): FileMeta = {
    val asked = request.knownByKey.get(stamp.key)
    val probe = asked.map(_.fingerprint.length).filter(_ < fingerprint.length).map { length =>
      Prefixes.md5(channel, length).getOrElse(Fingerprint(length, ""))
    }
    val tailAtFloor = asked.filter(_.floor <= size).flatMap(k => tail(channel, k.floor))
    val askedHead = Some(probe.getOrElse(fingerprint))
    val floor = floorOf(asked, size, askedHead, tailAtFloor)
    val (lineEnd, tailAtLineEnd, cuts, openFrom) =
      ends(channel, stamp, asked.nonEmpty, floor, size, fingerprint)
    // A tracked key may now be another file's (an inode reused): that one may be a copy too.
    val (copyOf, copyOfRetired) =
      if (asked.exists(identity.keepsHead(_, askedHead))) (None, None)
      else copies(channel, stamp.key, size, fingerprint, request)
    FileMeta(
      path.toString,
      stamp.key,
      size,
      lineEnd,
      fingerprint,
      probe,
      asked.map(_.floor),
      tailAtFloor,
      tailAtLineEnd,
      copyOf,
      cuts = cuts,
      copyOfRetired = copyOfRetired,
      openFrom = openFrom,
      modifiedMs = stamp.modifiedMs
    )
  }

  /**
   * The driver's position in the file, where it holds: only for the content it was planned
   * against. A replaced or truncated file is scanned from its start.
   */
  private def floorOf(
      asked: Option[KnownFile],
      size: Long,
      askedHead: Option[Fingerprint],
      tailAtFloor: Option[Fingerprint]): Long =
    asked
      .filter(k => identity.ofKey(k, size, askedHead, Some(tailAtFloor)) == FileIdentity.Same)
      .fold(0L)(_.floor)

  /**
   * Where the file's lines (or records) end from `floor`, with its tail there, where a batch may
   * end early, and where a runtime's open message starts.
   */
  private def ends(
      channel: FileChannel,
      stamp: FileStamp,
      asked: Boolean,
      floor: Long,
      size: Long,
      fingerprint: Fingerprint): (Long, Option[Fingerprint], Seq[Long], Option[Long]) =
    grouping match {
      case None =>
        val (lineEnd, tail) = lineEndAfter(channel, stamp.key, size, fingerprint, floor)
        val cuts = batchCuts.fold(Seq.empty[Long])(_.lineStarts(channel, floor, lineEnd, ending))
        (lineEnd, tail, cuts, None)
      case Some(rule) =>
        // A file first seen is looked at whole: `starting.offsets` latest starts at its end.
        val window = if (asked) rule.scanWindow else None
        val found = recordEnds(channel, stamp, floor, size, rule, window)
        val openFrom = found.openFrom.filter(_ => rule.format.byRuntime)
        (found.recordEnd, tail(channel, found.recordEnd), found.cuts, openFrom)
    }

  /**
   * The tracked file and the retired one (by id) the file is a copy of, if any: a whole copy
   * before one it may be the start of; of those, the one read furthest.
   */
  private def copies(
      channel: FileChannel,
      key: FileKey,
      size: Long,
      fingerprint: Fingerprint,
      request: NodeRequest): (Option[FileKey], Option[String]) = {
    val heads = mutable.Map(fingerprint.length -> Option(fingerprint))
    def head(length: Long) =
      heads.getOrElseUpdate(
        length,
        Some(length).filter(_ <= size).flatMap(Prefixes.md5(channel, _)))
    def copied(k: KnownFile) = k.key != key && isCopy(channel, size, head, k)
    val copyOf =
      request.known
        .filter(copied)
        .sortBy(k => (-k.floor, k.key.dev, k.key.ino))
        .headOption
        .map(_.key)
    val copyOfRetired = request.retired.toSeq
      .filter { case (_, k) => copied(k) }
      .sortBy { case (id, k) => (size < k.floor, -k.floor, id) }
      .headOption
      .map(_._1)
    copyOf -> copyOfRetired
  }

  /**
   * Where the file's complete records end, from `floor`; read after `lead`'s lines, when it
   * continues another file ([[RuntimeReopens]]).
   */
  def recordEnds(
      channel: FileChannel,
      stamp: FileStamp,
      floor: Long,
      size: Long,
      rule: RecordRule,
      window: Option[Long],
      lead: Option[LineReader] = None): RecordEnds = {
    val flushed = stamp.quietMs(clock.millis()) >= rule.flushMs
    val cuts = batchCuts.getOrElse(BatchCuts.Any)
    RecordEnds.scan(channel, floor, size, rule, flushed, window, cuts, lead, ending)
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
      .lastLineEnd(channel, earlier.fold(floor)(_.size), size, ending)
      .orElse(earlier.flatMap(_.lastEnd))
    val tails = (size +: found.toSeq).map(end => end -> tail(channel, end))
    scanned(key) = Scan(earlier.fold(floor)(_.from), size, found, head, tails)
    val lineEnd = found.filter(_ >= floor).getOrElse(floor)
    (lineEnd, tails.collectFirst { case (`lineEnd`, t) => t }.getOrElse(tail(channel, lineEnd)))
  }

  /** MD5 of the sample's length of bytes before `end`, or of all before it when fewer. */
  def tail(channel: FileChannel, end: Long): Option[Fingerprint] =
    Prefixes.tail(channel, end, sampleLength.toLong)

  /**
   * Whether this file is a copy of `k`, or the start of one ([[FileIdentity.ofCopy]]). `k`
   * tracked while shorter than the sample is known by a shorter head, which a file that merely
   * shares its first lines (a header) may start with too: such a file is reported a copy only
   * once `k` no longer holds those bytes (a rotation compressed it), never to wait on `k`. So is
   * one whose `k` was read to position 0 only (no complete line yet): a copy of it is read from
   * its start, as a new file is, and names `k` so that `k`'s bytes are not counted lost.
   *
   * @param head the MD5 of this file's first bytes, of a given length; None when it is shorter
   */
  private def isCopy(
      channel: FileChannel,
      size: Long,
      head: Long => Option[Fingerprint],
      k: KnownFile): Boolean =
    identity.ofCopy(k, size, head(k.fingerprint.length), Some(tail(channel, k.floor))) !=
      FileIdentity.Replaced

  private def samePrefix(old: Fingerprint, now: Fingerprint, channel: FileChannel): Boolean =
    FileIdentity.sameHead(
      old,
      if (old.length == now.length) Some(now) else Prefixes.md5(channel, old.length))
}

private object FileDescriber {

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
