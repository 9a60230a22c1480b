package com.hx.spark.sql.connector.aof.files.records

import java.nio.channels.FileChannel

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
    val scan = new RecordScan(channel, rule, batchCuts, ending)
    if (rule.format.byRuntime && !rule.multiline && lead.isEmpty && unbounded) {
      scan.backwards(floor, size, flushed)
    } else scan.forwards(floor, size, flushed, window, lead)
  }
}
