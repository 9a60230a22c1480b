package com.hx.spark.sql.connector.aof.stream

import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.plan.Reports

/**
 * When the bytes not yet read were written, as well as the driver can tell: no later than the
 * file's last write, and no later than the first trigger that found the file past them. The
 * second matters for a file written all the time, whose last write is always now, while a query
 * falls behind on it: the triggers' looks date its unread bytes to when they were first seen.
 *
 * Per file, the sizes it reached, each with the trigger that first saw it; sizes the query has
 * read past are forgotten, and so is a file no longer reported.
 */
final class WriteTimes {
  // Per host and file: (size first seen, when), the sizes increasing.
  @volatile private var seen = Map.empty[(String, FileKey), Vector[(Long, Long)]]

  /** A trigger at `nowMs` found `reports` (the news of its hosts), planning from `start`. */
  def observe(reports: Reports, start: AofOffset, nowMs: Long): Unit = synchronized {
    val next = for {
      (host, files) <- reports.files
      positions = SourceMetrics.positions(start, host)
      m <- files
    } yield {
      val pos = positions.getOrElse(m.key, 0L)
      val before = seen.getOrElse((host, m.key), Vector.empty)
      // A file cut shorter (copytruncate) is written again from its start.
      val kept = if (before.lastOption.exists(_._1 > m.size)) Vector.empty else before
      val grown = if (kept.lastOption.forall(_._1 < m.size)) kept :+ (m.size -> nowMs) else kept
      (host, m.key) -> grown.dropWhile(_._1 <= pos)
    }
    // The hosts without news are as they were.
    seen = seen.filter { case ((host, _), _) => !reports.files.contains(host) } ++
      next.filter(_._2.nonEmpty)
    backlogs --= reports.files.keys
  }

  // Per host, its backlog (bytes, oldest write) for the files and offsets it was worked out
  // from: a host without news since is not gone over again.
  @volatile private var backlogs =
    Map.empty[String, (Seq[FileMeta], Option[HostOffsets], (Long, Option[Long]))]

  /** The bytes of `files` past `offsets`, and when the oldest of them was written, at the latest. */
  def backlog(
      host: String,
      files: Seq[FileMeta],
      offsets: Option[HostOffsets]): (Long, Option[Long]) =
    backlogs.get(host) match {
      case Some((f, o, b)) if (f eq files) && sameObject(o, offsets) => b
      case _ =>
        val at =
          offsets.fold(Map.empty[FileKey, Long])(_.files.values.map(f => f.key -> f.pos).toMap)
        val bytes = files.map(m => math.max(0L, m.size - at.getOrElse(m.key, 0L))).sum
        val oldest = files.flatMap(m => oldestAfter(host, m, at.getOrElse(m.key, 0L)))
        val b = (bytes, oldest.reduceOption(_ min _))
        backlogs += host -> ((files, offsets, b))
        b
    }

  private def sameObject(a: Option[HostOffsets], b: Option[HostOffsets]): Boolean = (a, b) match {
    case (Some(x), Some(y)) => x eq y
    case (None, None) => true
    case _ => false
  }

  /**
   * When the file's first byte at or after `pos` was written, at the latest; None when it holds
   * no byte past `pos`.
   */
  def oldestAfter(host: String, m: FileMeta, pos: Long): Option[Long] =
    if (m.size <= pos) None
    else {
      val firstSeen = seen.get((host, m.key)).flatMap(_.find(_._1 > pos)).map(_._2)
      val modified = Some(m.modifiedMs).filter(_ > 0)
      (firstSeen ++ modified).reduceOption(_ min _)
    }
}
