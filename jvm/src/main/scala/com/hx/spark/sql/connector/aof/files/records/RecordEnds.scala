package com.hx.spark.sql.connector.aof.files.records

import java.nio.channels.FileChannel

import scala.collection.mutable.ArrayBuffer

import com.hx.spark.sql.connector.aof.files.container.CleanBefore
import com.hx.spark.sql.connector.aof.files.identity.Prefixes
import com.hx.spark.sql.connector.aof.files.lines.{LineEnding, LineReader}

/**
 * Where a file's complete records end, after a record start (the driver's position): what a node
 * reports for a file read as records ([[RecordRule]]). A range may end only at a record start
 * that is a clean position ([[MessageJoin]]): every line is one in text.
 *
 * @param recordEnd where the last complete record ends: the start of the last record, which may
 *                  still grow (without a multi-line pattern, the end of the last message), or the
 *                  end of the last line once the file is flushed
 * @param cuts      record starts between the floor and `recordEnd` at which the driver may end a
 *                  batch early: the first one, and the last one at or before each of
 *                  [[BatchCuts]]' thresholds
 * @param openFrom  where the lines of messages (records) still open at the file's end start,
 *                  when the scan read complete lines to its end and some are: the end of the
 *                  last complete record, flushed or not. A file another one continues is read
 *                  to there ([[RuntimeReopens]])
 */
final case class RecordEnds(recordEnd: Long, cuts: Seq[Long], openFrom: Option[Long] = None)

object RecordEnds {

  /**
   * @param floor   a record start: the driver's position in the file, or 0
   * @param flushed the file went the rule's flush time without a write: its last record is
   *                complete
   * @param window  stop at the first record start this far past the floor
   * @param batchCuts where batches may end early
   * @param lead    the lines of the file this one continues, from its `openFrom`: taken first,
   *                at negative offsets, so that their open messages go on in this file
   * @param ending  how the file's bytes are lines (a runtime's are UTF-8 and `\n`)
   */
  def scan(
      channel: FileChannel,
      floor: Long,
      size: Long,
      rule: RecordRule,
      flushed: Boolean,
      window: Option[Long],
      batchCuts: BatchCuts,
      lead: Option[LineReader] = None,
      ending: LineEnding = LineEnding.Default): RecordEnds = {
    val unbounded = window.forall(w => w >= size - floor)
    if (rule.format.wrapped && !rule.multiline && lead.isEmpty && unbounded) {
      backwards(channel, floor, size, rule, flushed, batchCuts)
    } else forwards(channel, floor, size, rule, flushed, window, batchCuts, lead, ending)
  }

  /**
   * The same as [[forwards]] for a runtime's messages read from a clean `floor`, found from the
   * end and from each threshold backwards ([[CleanBefore]]): most of the file is never read.
   */
  private def backwards(
      channel: FileChannel,
      floor: Long,
      size: Long,
      rule: RecordRule,
      flushed: Boolean,
      batchCuts: BatchCuts): RecordEnds = {
    val cleanBefore = new CleanBefore(channel, rule.format, rule.lineLimit)
    val lineEnd = Prefixes.lastLineEnd(channel, floor, size).getOrElse(floor)
    val last = cleanBefore(floor, lineEnd)
    val end = if (flushed) lineEnd else last
    var lower = floor
    val atThresholds = batchCuts.thresholds(floor).takeWhile(_ < end).map { t =>
      lower = if (t >= last) last else cleanBefore(lower, t)
      lower
    }
    val cuts = (firstClean(channel, floor, last, rule).iterator ++ atThresholds)
      .filter(c => c > floor && c < end)
      .toList
      .distinct
    RecordEnds(end, cuts, Some(last).filter(_ < size && lineEnd == size))
  }

  /** The first clean position after `floor`, if one is at or before `last`. */
  private def firstClean(channel: FileChannel, floor: Long, last: Long, rule: RecordRule) = {
    val lines = new LineReader(channel, floor, last, rule.lineLimit, 16 * 1024)
    val messages = rule.messages()
    var found = Option.empty[Long]
    while (found.isEmpty && lines.next()) {
      messages.take(lines)
      if (messages.isClean) found = Some(lines.lineEnd)
    }
    found
  }

  /** Reads the lines from `floor` on (after `lead`'s), to the end or past the window. */
  private[files] def forwards(
      channel: FileChannel,
      floor: Long,
      size: Long,
      rule: RecordRule,
      flushed: Boolean,
      window: Option[Long],
      batchCuts: BatchCuts,
      lead: Option[LineReader],
      ending: LineEnding = LineEnding.Default): RecordEnds = {
    val lines = new LineReader(channel, floor, size, rule.lineLimit, 64 * 1024, ending)
    val messages = rule.messages()
    val stopAt = window.filter(_ < Long.MaxValue - floor).fold(Long.MaxValue)(floor + _)
    val cuts = ArrayBuffer.empty[Long]
    val thresholds = batchCuts.thresholds(floor)
    def nextThreshold() = if (thresholds.hasNext) thresholds.next() else Long.MaxValue
    var threshold = nextThreshold()
    var last = floor // the last record start seen
    def started(at: Long): Unit = {
      if (cuts.isEmpty) cuts += at
      while (at > threshold) {
        if (last > floor && cuts.last != last) cuts += last
        threshold = nextThreshold()
      }
      last = at
    }
    var stopped = false
    def cut(at: Long): Unit = {
      if (at > last) started(at)
      stopped = at >= stopAt
    }
    // Clean positions that a record still open may yet span: cuts once it is complete.
    val records = if (rule.multiline) Some(new RecordJoin(rule)) else None
    val unsettled = ArrayBuffer.empty[Long]
    lead.foreach { l =>
      val shift = -l.until
      while (l.next()) {
        if (messages.take(l, shift)) records.foreach { join =>
          join.add(messages)
          while (join.hasReady) join.take()
        }
      }
    }
    while (!stopped && lines.next()) {
      val completed = messages.take(lines)
      records match {
        case None => if (messages.isClean) cut(lines.lineEnd)
        case Some(join) =>
          if (completed) {
            join.add(messages)
            val from = join.openFrom(messages.stream)
            if (from < messages.offset) {
              // The message goes on a record from before: no range may end inside that record.
              val spanned = unsettled.indexWhere(_ > from)
              if (spanned >= 0) unsettled.remove(spanned, unsettled.size - spanned)
            }
            while (join.hasReady) join.take()
          }
          if (messages.isClean) unsettled += lines.lineEnd
          val settled = unsettled.takeWhile(_ <= join.openFrom)
          unsettled.remove(0, settled.size)
          settled.foreach(at => if (!stopped) cut(at))
      }
    }
    val open = Some(last).filter(_ < size && !stopped && !lines.incomplete)
    if (!stopped && flushed) {
      // Every record is complete; the line being written starts the next one.
      unsettled.foreach(at => if (!stopped) cut(at))
      val lineEnd = if (lines.incomplete) lines.lineOffset else size
      if (!stopped && lineEnd > last) started(lineEnd)
    }
    RecordEnds(last, cuts.filter(_ < last).toList, open)
  }
}
