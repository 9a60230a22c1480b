package com.hx.spark.sql.connector.aof.endpoint

import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopies
import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.{
  ClosestNames, DirectoryChanges, FileListing, UnlistedDirectory
}
import com.hx.spark.sql.connector.aof.files.scan.{DirectoryScanner, NodeScanner}
import com.hx.spark.sql.connector.aof.journal.JournalScanner
import com.hx.spark.sql.connector.aof.protocol.{Answer, Request}

/**
 * A serving endpoint's looks at its files, each the whole answer to the driver's request, and
 * what they cost, which an operator watches. What a look lists the [[LookSchedule]] tells
 * `changedDirs`. On the endpoint's worker; the figures are read from any thread.
 */
private[endpoint] final class EndpointLooks(spec: EndpointSpec) {

  /** The directories a watch heard change since a look. */
  val changedDirs: DirectoryChanges = new DirectoryChanges

  private val scanner: NodeScanner =
    if (spec.read.journal.nonEmpty) new JournalScanner(spec.files)
    else
      new DirectoryScanner(
        spec.files,
        spec.md5SampleLength,
        spec.read.grouping,
        batchCuts = spec.batchCuts,
        identity = spec.read.identity,
        ignoreOlderMs = spec.ignoreOlderMs,
        ending = spec.read.ending,
        cleanup = spec.cleanup,
        changes = Some(changedDirs)
      )
  private val copies = new UnmatchedCopies(spec.md5SampleLength)
  @volatile private var files = 0L
  @volatile private var lastMs = 0L
  @volatile private var count = 0L
  private var wholeMs = 0L

  /** The files the last look found. */
  def filesWatched: Long = files

  /** How long the last look took, with its answer (ms). */
  def lookMs: Long = lastMs

  /** How long the last look of every directory took (ms). */
  def wholeLookMs: Long = wholeMs

  /** The looks so far: each lists, stats and describes the files. */
  def looks: Long = count

  /** The looks so far that listed every directory, not only those a watch heard change. */
  def wholeLooks: Long = scanner.wholeListings

  /**
   * Looks at the files for `request`, `known` what the driver knows of them; `answered` makes
   * the answer sent from the whole one and says when the next look may say more of a file
   * settling. A directory that cannot be listed is said, with no files.
   */
  def look(request: Request, known: Seq[KnownFile])(
      answered: (Answer, Option[Long]) => Option[Answer]): Option[Answer] = {
    val began = System.nanoTime()
    val wholeBefore = scanner.wholeListings
    val (found, unlisted) =
      try scanner.scan(known, request.retired, request.remove.toSet) -> None
      catch { case u: UnlistedDirectory => (Seq.empty[FileMeta], Some(u.reason)) }
    files = found.size.toLong
    count += 1
    val listed = unlisted.isEmpty
    val absent = found.isEmpty && listed && !scanner.directoryExists
    val full = Answer(
      request.id,
      found,
      unlisted = unlisted,
      absent = absent,
      retired = if (listed) request.retired.keys.toSeq.sorted else Nil,
      ignored = if (listed) scanner.ignored else 0,
      removed = if (listed) scanner.removedByLastScan else Nil,
      notRemoved = if (listed) scanner.notRemovedByLastScan else 0,
      closest = if (found.isEmpty && listed && !absent) {
        ClosestNames.of(spec.files, new FileListing(spec.files))
      } else Nil,
      unmatchedCopies =
        if (listed) copies.of(request.retired, found, scanner.unreadFiles) else Map.empty
    )
    val answer = answered(full, if (listed) scanner.nextSettlingMs else None)
    lastMs = (System.nanoTime() - began) / 1000000L
    if (scanner.wholeListings > wholeBefore) wholeMs = lastMs
    answer
  }
}
