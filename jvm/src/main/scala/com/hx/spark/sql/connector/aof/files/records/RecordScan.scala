package com.hx.spark.sql.connector.aof.files.records

import java.nio.channels.FileChannel

import scala.collection.mutable.ArrayBuffer

import com.hx.spark.sql.connector.aof.files.container.{CleanBefore, MessageJoin}
import com.hx.spark.sql.connector.aof.files.identity.Prefixes
import com.hx.spark.sql.connector.aof.files.lines.{LineEnding, LineReader}

/**
 * How [[RecordEnds]] are found in one file, by `rule`, from a record start (`floor`) to `size`:
 * read forwards, or for a runtime's messages from a clean floor, backwards from the end.
 */
private[files] final class RecordScan(
    channel: FileChannel,
    rule: RecordRule,
    batchCuts: BatchCuts,
    ending: LineEnding) {

  /**
   * The same as [[forwards]] for a runtime's messages read from a clean `floor`, found from the
   * end and from each threshold backwards ([[CleanBefore]]): most of the file is never read.
   */
  def backwards(floor: Long, size: Long, flushed: Boolean): RecordEnds = {
    val cleanBefore = new CleanBefore(channel, rule.format, rule.lineLimit)
    val lineEnd = Prefixes.lastLineEnd(channel, floor, size).getOrElse(floor)
    val last = cleanBefore(floor, lineEnd)
    val end = if (flushed) lineEnd else last
    var lower = floor
    val atThresholds = batchCuts.thresholds(floor).takeWhile(_ < end).map { t =>
      lower = if (t >= last) last else cleanBefore(lower, t)
      lower
    }
    val cuts = (firstClean(floor, last).iterator ++ atThresholds)
      .filter(c => c > floor && c < end)
      .toList
      .distinct
    RecordEnds(end, cuts, Some(last).filter(_ < size && lineEnd == size))
  }

  /** The first clean position after `floor`, if one is at or before `last`. */
  private def firstClean(floor: Long, last: Long): Option[Long] = {
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
  def forwards(
      floor: Long,
      size: Long,
      flushed: Boolean,
      window: Option[Long],
      lead: Option[LineReader]): RecordEnds = {
    val lines = new LineReader(channel, floor, size, rule.lineLimit, 64 * 1024, ending)
    val messages = rule.messages()
    val ends = new RecordScan.Starts(floor, window, batchCuts)
    // Clean positions that a record still open may yet span: cuts once it is complete.
    val records = if (rule.multiline) Some(new RecordJoin(rule)) else None
    val unsettled = ArrayBuffer.empty[Long]
    lead.foreach(readLead(_, messages, records))
    while (!ends.stopped && lines.next()) {
      val completed = messages.take(lines)
      records match {
        case None => if (messages.isClean) ends.cut(lines.lineEnd)
        case Some(join) => joined(join, messages, completed, lines.lineEnd, unsettled, ends)
      }
    }
    val open = Some(ends.last).filter(_ < size && !ends.stopped && !lines.incomplete)
    if (!ends.stopped && flushed) {
      // Every record is complete; the line being written starts the next one.
      unsettled.foreach(ends.cut)
      val lineEnd = if (lines.incomplete) lines.lineOffset else size
      if (!ends.stopped && lineEnd > ends.last) ends.started(lineEnd)
    }
    RecordEnds(ends.last, ends.cuts.filter(_ < ends.last).toList, open)
  }

  /**
   * The lines of the file this one continues, taken first at negative offsets: its messages
   * still open go on in this file, and what they complete is not this file's.
   */
  private def readLead(lead: LineReader, messages: MessageJoin, records: Option[RecordJoin]) = {
    val shift = -lead.until
    while (lead.next()) {
      if (messages.take(lead, shift)) records.foreach { join =>
        join.add(messages)
        while (join.hasReady) join.take()
      }
    }
  }

  /**
   * A line read for multi-line records: a message it completes joins its record, and the clean
   * positions no record still open spans are record starts.
   */
  private def joined(
      join: RecordJoin,
      messages: MessageJoin,
      completed: Boolean,
      lineEnd: Long,
      unsettled: ArrayBuffer[Long],
      ends: RecordScan.Starts): Unit = {
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
    if (messages.isClean) unsettled += lineEnd
    val settled = unsettled.takeWhile(_ <= join.openFrom)
    unsettled.remove(0, settled.size)
    settled.foreach(ends.cut)
  }
}

private object RecordScan {

  /**
   * The record starts a forward scan finds from `floor`: the last one, and the cuts among them
   * (the first, and the last at or before each of `batchCuts`' thresholds). It stops at the first
   * past the window.
   */
  final class Starts(floor: Long, window: Option[Long], batchCuts: BatchCuts) {
    private val stopAt = window.filter(_ < Long.MaxValue - floor).fold(Long.MaxValue)(floor + _)
    private val thresholds = batchCuts.thresholds(floor)
    private var threshold = nextThreshold()
    val cuts: ArrayBuffer[Long] = ArrayBuffer.empty[Long]
    var last: Long = floor
    var stopped = false

    private def nextThreshold() = if (thresholds.hasNext) thresholds.next() else Long.MaxValue

    /** A record starts at `at`. */
    def started(at: Long): Unit = {
      if (cuts.isEmpty) cuts += at
      while (at > threshold) {
        if (last > floor && cuts.last != last) cuts += last
        threshold = nextThreshold()
      }
      last = at
    }

    /** A clean position: a record starts there, unless the scan stopped before. */
    def cut(at: Long): Unit = if (!stopped) {
      if (at > last) started(at)
      stopped = at >= stopAt
    }
  }
}
