package com.hx.spark.sql.connector.aof.backlog

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.plan.{AnswerChange, News}

/**
 * When the bytes not yet read were written, as well as the driver can tell: no later than the
 * file's last write, and no later than the first trigger that found the file past them. The
 * second matters for a file written all the time, whose last write is always now, while a query
 * falls behind on it: the triggers' looks date its unread bytes to when they were first seen.
 *
 * Per file with bytes past its position, the sizes it reached, each with the trigger that first
 * saw it; sizes the query has read past are forgotten, and so is a file no longer reported. A
 * file read to its end keeps nothing: of thousands of quiet files, a trigger keeps none. A
 * trigger goes over the files whose answer or offset changed since the last one only
 * ([[AnswerChange]], `HostOffsets.changedSince`): the others keep what they had.
 */
final class WriteTimes {
  import WriteTimes.{sameObject, Backlog, Basis, Sizes}

  // Per host and file: (size first seen, when), the sizes increasing.
  private val seen = mutable.HashMap.empty[String, mutable.HashMap[FileKey, Sizes]]
  // Per host, what `seen` was last worked out from: the next trigger goes over what changed.
  private val observed = mutable.HashMap.empty[String, Basis]
  // Per host, its files past their offsets, and what they were worked out from.
  private val backlogs = mutable.HashMap.empty[String, Backlog]

  /** A trigger at `nowMs` found `news` (its hosts'), planning from `start`. */
  def observe(news: News, start: AofOffset, nowMs: Long): Unit = synchronized {
    news.files.foreach { case (host, files) =>
      val offsets = start.hosts.get(host)
      val sizes = seen.getOrElse(host, mutable.HashMap.empty[FileKey, Sizes])
      val now = observed.get(host).flatMap(_.changesTo(files, offsets)) match {
        case Some((all, changed)) =>
          changed.foreach { case (key, meta) =>
            val before = sizes.remove(key)
            meta.flatMap(WriteTimes.sizes(before, _, offsets, nowMs)).foreach(sizes(key) = _)
          }
          all
        case None =>
          val before = sizes.clone()
          sizes.clear()
          files.foreach { m =>
            WriteTimes.sizes(before.get(m.key), m, offsets, nowMs).foreach(sizes(m.key) = _)
          }
          files.toArray
      }
      observed(host) = Basis(now, offsets)
      if (sizes.isEmpty) seen -= host else seen(host) = sizes
    }
  }

  /** The bytes of `files` past `offsets`, and when the oldest of them was written, at latest. */
  def backlog(
      host: String,
      files: Seq[FileMeta],
      offsets: Option[HostOffsets]): (Long, Option[Long]) = synchronized {
    val b = backlogs.get(host) match {
      case Some(b) if (b.files eq files) && sameObject(b.basis.offsets, offsets) => b
      case last =>
        val changes = last.flatMap(l => l.basis.changesTo(files, offsets).map(l -> _))
        val (all, behind) = changes match {
          case Some((l, (all, changed))) =>
            all -> changed.foldLeft(l.behind) { case (behind, (key, meta)) =>
              val pos = WriteTimes.position(offsets, key)
              meta.filter(_.size > pos).fold(behind - key)(m => behind.updated(key, m -> pos))
            }
          case None =>
            val all = files.toArray
            all -> all.iterator
              .map(m => m -> WriteTimes.position(offsets, m.key))
              .collect { case (m, pos) if m.size > pos => m.key -> (m -> pos) }
              .toMap
        }
        Backlog(files, Basis(all, offsets), behind)
    }
    backlogs(host) = b
    val bytes = b.behind.valuesIterator.map { case (m, pos) => m.size - pos }.sum
    val oldest = b.behind.valuesIterator.flatMap { case (m, pos) => oldestAfter(host, m, pos) }
    (bytes, oldest.reduceOption(_ min _))
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

  /** The sizes a file reached past its offset, each with the trigger that first saw it. */
  type Sizes = Vector[(Long, Long)]

  /**
   * What a host's figures were worked out from: its files, as an array to walk the next answer
   * beside ([[AnswerChange]]), and its offsets.
   */
  final case class Basis(files: Array[FileMeta], offsets: Option[HostOffsets]) {

    /**
     * `files` as an array, and the keys of the files whose answer or offset changed since this
     * basis, each with its file now (None: gone); None when that cannot be told (another order,
     * offsets no plan made from these): go over every file.
     */
    def changesTo(
        files: Seq[FileMeta],
        offsets: Option[HostOffsets]): Option[(Array[FileMeta], Map[FileKey, Option[FileMeta]])] = {
      val moved = (this.offsets, offsets) match {
        case (a, b) if sameObject(a, b) => Some(Set.empty[String])
        case (Some(a), Some(b)) => b.changedSince(a)
        case _ => None
      }
      for {
        ids <- moved
        change <- AnswerChange.between(this.files, files)
      } yield {
        val answered = change.changed.iterator.map(i => change.files(i)).map(m => m.key -> Some(m))
        val answers = answered.toMap ++ change.gone.iterator.map(_ -> Option.empty[FileMeta])
        val movedKeys = ids.iterator
          .flatMap(id =>
            offsets.flatMap(_.files.get(id)).orElse(this.offsets.flatMap(_.files.get(id))))
          .map(_.key)
          .filterNot(answers.contains)
          .toSet
        // A file read on whose answer is as it was: looked up among all (a batch cut short).
        lazy val byKey = change.files.iterator.map(m => m.key -> m).toMap
        (change.files, answers ++ movedKeys.iterator.map(k => k -> byKey.get(k)))
      }
    }
  }

  /** A host's files past their offsets (by key: the file, its offset's position). */
  final case class Backlog(
      files: Seq[FileMeta],
      basis: Basis,
      behind: Map[FileKey, (FileMeta, Long)])

  /** The sizes kept of `m` after a trigger at `nowMs`, given those kept `before`; None: none. */
  def sizes(
      before: Option[Sizes],
      m: FileMeta,
      offsets: Option[HostOffsets],
      nowMs: Long): Option[Sizes] = {
    val pos = position(offsets, m.key)
    if (m.size <= pos) None
    else {
      val sizes = before.getOrElse(Vector.empty)
      // A file cut shorter (copytruncate) is written again from its start.
      val kept = if (sizes.lastOption.exists(_._1 > m.size)) Vector.empty else sizes
      val sizeSeen = kept.lastOption.exists(_._1 >= m.size)
      Some((if (sizeSeen) kept else kept :+ (m.size -> nowMs)).dropWhile(_._1 <= pos))
    }
  }

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
