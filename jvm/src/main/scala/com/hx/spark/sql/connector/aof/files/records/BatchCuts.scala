package com.hx.spark.sql.connector.aof.files.records

import java.nio.channels.FileChannel

import com.hx.spark.sql.connector.aof.files.identity.Prefixes
import com.hx.spark.sql.connector.aof.files.lines.LineEnding

/**
 * Where a node tells the driver a batch may end early, when `bytes.max` or `batch.bytes.max`
 * bounds it: at line (or record) starts only. A batch that ended inside a line would leave the
 * offset there while its reader read the line whole, and a file deleted next would have the rest
 * of that line counted lost.
 *
 * For each threshold past the floor (each limit itself, and 256 bytes, 512, 1 KiB...) the node
 * reports the last start at or before it: a batch of `bytes.max`, or of a lone file under
 * `batch.bytes.max`, ends exactly at the last line that fits, a smaller share of
 * `batch.bytes.max` within half of it, and the list stays a few dozen numbers for any file.
 *
 * @param limits the query's `bytes.max` and `batch.bytes.max`, those set
 */
final case class BatchCuts(limits: Seq[Long]) {

  /** The thresholds past `floor`, in increasing order. */
  def thresholds(floor: Long): Iterator[Long] =
    (Iterator.iterate(BatchCuts.First)(_ * 2).take(BatchCuts.Doublings) ++ limits)
      .filter(d => d > 0 && d <= Long.MaxValue - floor)
      .toSeq
      .distinct
      .sorted
      .iterator
      .map(floor + _)

  /** The line starts in `(floor, lineEnd)` at which a batch may end, one for each threshold. */
  def lineStarts(
      channel: FileChannel,
      floor: Long,
      lineEnd: Long,
      ending: LineEnding = LineEnding.Default): Seq[Long] = {
    var searched = floor
    thresholds(floor)
      .takeWhile(_ < lineEnd)
      .flatMap { t =>
        // No line starts in (searched, t] when this finds none: the last one before is a cut.
        val start = Prefixes.lastLineEnd(channel, searched, t, ending)
        searched = t
        start
      }
      .toList
  }
}

object BatchCuts {
  private val First = 256L
  private val Doublings = 54

  /** Cuts for no limit in particular. */
  val Any: BatchCuts = BatchCuts(Nil)
}
