package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets, OffsetJson, OffsetSnapshot}

/**
 * The rules of a host's plan journal ([[PlanJournal]]), apart from where it is kept.
 *
 * A journal holds, for the offsets its batch started from, the ends of the plans its task made:
 * not every plan, but one end per segment. Plans that only read on, or add files, compose: the
 * ranges from a segment's start to its last end are those of its plans together. A plan that
 * drops a file from the tracked ones (retired or given up) ends a segment, since the ranges up to
 * its end no longer name that file. So a journal stays a few entries long however long a batch
 * runs, and is written whole at each plan.
 */
object JournalPlans {

  /** The segments once a plan ending at `end` is kept after `segments`. */
  def kept(segments: Seq[HostOffsets], end: HostOffsets): Seq[HostOffsets] =
    segments.lastOption match {
      case Some(last) if last.files.keySet.subsetOf(end.files.keySet) => segments.init :+ end
      case _ => segments :+ end
    }

  /**
   * What a batch starting at `start` reads first, of a journal written (as `plans`) for a batch
   * that started at `from`: all of it when that was the same start (the same batch again), else
   * what is [[carried]] over.
   */
  def reopened(
      host: String,
      start: Option[HostOffsets],
      from: Option[HostOffsets],
      plans: String): Seq[HostOffsets] = {
    val same = read(plans, host, start)
    if (same.nonEmpty) same else carried(start, read(plans, host, from))
  }

  /**
   * What a batch starting at `start` must read first of a journal made from another start: the
   * segments from the one `start` lies within, when an earlier batch ended inside it (a task
   * stops after any row: its offsets are then a segment's end with some files not read to it).
   * The lines up to those ends may have reached the sink in a batch that was not committed;
   * planned again, they could get other ids. None of them when `start` lies past the journal.
   */
  def carried(start: Option[HostOffsets], segments: Seq[HostOffsets]): Seq[HostOffsets] =
    start.fold(Seq.empty[HostOffsets]) { s =>
      segments.indexWhere(within(s, _)) match {
        case -1 => Nil
        case i => segments.drop(i)
      }
    }

  private def within(start: HostOffsets, end: HostOffsets): Boolean =
    start.nextSerial == end.nextSerial && start.files.keySet == end.files.keySet &&
      start.retired.keySet == end.retired.keySet &&
      start.files.forall { case (id, f) => f.pos <= end.files(id).pos }

  /** [[Text.write]] for a start. */
  def write(host: String, start: Option[HostOffsets], segments: Seq[HostOffsets]): String =
    new Text(host, start).write(segments)

  /** [[Text.read]] for a start. */
  def read(text: String, host: String, start: Option[HostOffsets]): Seq[HostOffsets] =
    new Text(host, start).read(text)

  /**
   * The journal as text for a batch that starts at `start`: the digest of the start (made once:
   * it hashes every file the host has, and a task writes its journal at each plan), then each
   * segment's end as what changed since the one before (the first: since the start), as offset
   * JSON on the snapshot `previous`.
   */
  final class Text(host: String, start: Option[HostOffsets]) {

    /** The journal's first line: the start's digest. */
    val named: String = digest(host, start)
    private val base = start.getOrElse(HostOffsets.Empty)

    /** Whether `plans` were written for this start (they may have no segment yet). */
    def names(plans: String): Boolean = plans.takeWhile(_ != '\n') == named

    // Each segment's line, with its end and the end before it (the same objects): a task
    // writes the journal at each plan, where most often only the last segment changed.
    private var lines = Vector.empty[(HostOffsets, HostOffsets, String)]

    def write(segments: Seq[HostOffsets]): String = {
      val ends = segments.zip(base +: segments).zipWithIndex.map { case ((end, previous), i) =>
        lines.lift(i).filter(l => (l._1 eq end) && (l._2 eq previous)).getOrElse {
          val line = OffsetJson.write(AofOffset(Map(host -> end), Some(snapshot(host, previous))))
          (end, previous, line)
        }
      }
      lines = ends.toVector
      (named +: ends.map(_._3)).mkString("\n")
    }

    /** The segments of a journal written for this start; none when it was written for another. */
    def read(text: String): Seq[HostOffsets] =
      text.split('\n').toList match {
        case first :: deltas if first == named =>
          deltas
            .scanLeft(base) { (previous, json) =>
              OffsetJson
                .read(json, _ => snapshot(host, previous))
                .hosts
                .getOrElse(host, HostOffsets.Empty)
            }
            .tail
        case _ => Nil
      }
  }

  private def snapshot(host: String, previous: HostOffsets) =
    new OffsetSnapshot("previous", Map(host -> previous))

  /**
   * A digest of a start: its host and that host's offsets, if any, in an order of their own (the
   * same offsets, parsed from the checkpoint or merged by the driver, are maps built in other
   * orders).
   */
  def digest(host: String, start: Option[HostOffsets]): String = {
    val text = start.fold(s"new host $host") { o =>
      (s"$host ${o.nextSerial}" +: (o.files.toSeq ++ o.retired.toSeq).sortBy(_._1).map(_.toString))
        .mkString("\n")
    }
    MessageDigest.getInstance("MD5").digest(text.getBytes(UTF_8)).map("%02x".format(_)).mkString
  }
}
