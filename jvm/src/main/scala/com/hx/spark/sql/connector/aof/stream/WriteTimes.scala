package com.hx.spark.sql.connector.aof.stream

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.plan.Reports

/**
 * When the bytes not yet read were written, as well as the driver can tell: no later than the
 * file's last write, and no later than the first trigger that found the file past them. The
 * second matters for a file written all the time, whose last write is always now, while a query
 * falls behind on it: the triggers' looks date its unread bytes to when they were first seen.
 *
 * Per file with bytes past its position, the sizes it reached, each with the trigger that first
 * saw it; sizes the query has read past are forgotten, and so is a file no longer reported. A
 * file read to its end keeps nothing: of thousands of quiet files, a trigger keeps none.
 */
final class WriteTimes {
  import WriteTimes.Backlog

  // Per host and file: (size first seen, when), the sizes increasing.
  private val seen = mutable.HashMap.empty[String, mutable.HashMap[FileKey, Vector[(Long, Long)]]]
  // Per host, its backlog and what it was worked out from: a host without news since is not
  // gone over again.
  private val backlogs = mutable.HashMap.empty[String, Backlog]

  /** A trigger at `nowMs` found `reports` (the news of its hosts), planning from `start`. */
  def observe(reports: Reports, start: AofOffset, nowMs: Long): Unit = synchronized {
    reports.files.foreach { case (host, files) =>
      val offsets = start.hosts.get(host)
      val before = seen.getOrElse(host, mutable.HashMap.empty[FileKey, Vector[(Long, Long)]])
      val next = mutable.HashMap.empty[FileKey, Vector[(Long, Long)]]
      files.foreach { m =>
        val pos = WriteTimes.position(offsets, m.key)
        if (m.size > pos) {
          val sizes = before.getOrElse(m.key, Vector.empty)
          // A file cut shorter (copytruncate) is written again from its start.
          val kept = if (sizes.lastOption.exists(_._1 > m.size)) Vector.empty else sizes
          val sizeSeen = kept.lastOption.exists(_._1 >= m.size)
          next(m.key) = (if (sizeSeen) kept else kept :+ (m.size -> nowMs)).dropWhile(_._1 <= pos)
        }
      }
      if (next.isEmpty) seen -= host else seen(host) = next
      backlogs -= host
    }
  }

  /** The bytes of `files` past `offsets`, and when the oldest of them was written, at latest. */
  def backlog(
      host: String,
      files: Seq[FileMeta],
      offsets: Option[HostOffsets]): (Long, Option[Long]) = synchronized {
    backlogs.get(host) match {
      case Some(b) if (b.files eq files) && WriteTimes.sameObject(b.offsets, offsets) => b.figures
      case _ =>
        var bytes = 0L
        var oldest = Option.empty[Long]
        files.foreach { m =>
          val pos = WriteTimes.position(offsets, m.key)
          if (m.size > pos) {
            bytes += m.size - pos
            oldest = (oldest ++ oldestAfter(host, m, pos)).reduceOption(_ min _)
          }
        }
        val b = Backlog(files, offsets, (bytes, oldest))
        backlogs(host) = b
        b.figures
    }
  }

  /**
   * When the file's first byte at or after `pos` was written, at the latest; None when it holds
   * no byte past `pos`.
   */
  def oldestAfter(host: String, m: FileMeta, pos: Long): Option[Long] = synchronized {
    if (m.size <= pos) None
    else {
      val firstSeen = seen.get(host).flatMap(_.get(m.key)).flatMap(_.find(_._1 > pos)).map(_._2)
      val modified = Some(m.modifiedMs).filter(_ > 0)
      (firstSeen ++ modified).reduceOption(_ min _)
    }
  }
}

private object WriteTimes {

  /** A host's backlog (bytes, oldest write), for the files and offsets it was worked out from. */
  final case class Backlog(
      files: Seq[FileMeta],
      offsets: Option[HostOffsets],
      figures: (Long, Option[Long]))

  /** Where `offsets` are in the file of `key`: 0 for a file they do not track. */
  def position(offsets: Option[HostOffsets], key: FileKey): Long = offsets match {
    case Some(o) => o.ofKey(key).fold(0L)(_.pos)
    case None => 0L
  }

  def sameObject(a: Option[HostOffsets], b: Option[HostOffsets]): Boolean = (a, b) match {
    case (Some(x), Some(y)) => x eq y
    case (None, None) => true
    case _ => false
  }
}
