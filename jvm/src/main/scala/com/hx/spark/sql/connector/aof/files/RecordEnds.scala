package com.hx.spark.sql.connector.aof.files

import java.nio.channels.FileChannel

import scala.collection.mutable.ArrayBuffer

/**
 * Where a file's complete records end, found by reading its lines from a record start (the
 * driver's position): what a node reports for a file in multi-line mode.
 *
 * @param recordEnd where the last complete record ends: the start of the last record, which may
 *                  still grow, or the end of the last line once the file is flushed
 * @param cuts      record starts between the floor and `recordEnd` at which the driver may end a
 *                  batch early: the first one, and the last one at or before each of
 *                  [[BatchCuts]]' thresholds
 */
final case class RecordEnds(recordEnd: Long, cuts: Seq[Long])

object RecordEnds {

  /**
   * @param floor   a record start: the driver's position in the file, or 0
   * @param flushed the file went the rule's flush time without a write: its last record is
   *                complete
   * @param window  stop at the first record start this far past the floor
   * @param batchCuts where batches may end early
   */
  def scan(
      channel: FileChannel,
      floor: Long,
      size: Long,
      rule: RecordRule,
      flushed: Boolean,
      window: Option[Long],
      batchCuts: BatchCuts): RecordEnds = {
    val lines = new LineReader(channel, floor, size, rule.lineLengthMax, 64 * 1024)
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
    var recordBytes = 0L
    var stopped = false
    while (!stopped && lines.next()) {
      val at = lines.lineOffset
      if (rule.startsRecord(lines.lineBytes, lines.lineStart, lines.lineLength, recordBytes)) {
        if (at > floor) started(at)
        recordBytes = 0L
        stopped = at >= stopAt
      }
      recordBytes += lines.lineLength + 1
    }
    if (!stopped && flushed) {
      // Where the last complete line ends: the line being written starts the next record.
      val lineEnd = if (lines.incomplete) lines.lineOffset else size
      if (lineEnd > last) started(lineEnd)
    }
    RecordEnds(last, cuts.filter(_ < last).toList)
  }
}
