package com.hx.spark.sql.connector.aof.read

import java.io.Closeable
import java.nio.channels.ClosedByInterruptException

import org.apache.spark.unsafe.types.UTF8String
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.journal.{
  JournalRange, JournalRead, JournalScanner, JournalSequence
}
import com.hx.spark.sql.connector.aof.plan.FileRange

/**
 * Reads one planned range of a journal's sequence (`format` `journald`): its entries by number,
 * from whichever of the sequence's files hold them now, so a rotation since planning changes
 * nothing and a replay reads the same entries. Numbers journald removed before they were read
 * are counted as lost (or fail the task with `fail.on.data.loss`); entries `read` does not keep
 * are counted, not rows.
 */
final class JournalRangeReader(
    range: FileRange,
    files: SourceFiles,
    read: JournalRead,
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    batch: JournalBatch)
    extends Closeable {
  private val seqnumId = JournalScanner.seqnumId(range.key)
  private val entries =
    new JournalRange(JournalSequence.listed(files), seqnumId, range.from, range.until)
  if (entries.lost > 0) lost(entries.lost)
  private val hostValue = UTF8String.fromString(range.host)
  private val fileIdValue = UTF8String.fromString(range.fileId)
  private var path: java.nio.file.Path = null
  private var pathValue = UTF8String.EMPTY_UTF8

  /** Fills the batch with the range's next entries, at least one; false when it has no more. */
  def nextBatch(plannedAtMs: Long): Boolean = {
    batch.reset(hostValue, fileIdValue, plannedAtMs)
    val invalidBefore = batch.invalidFields
    while (!batch.isFull && entries.hasNext) {
      val entry = entries.next()
      if (read.keeps(entry)) {
        if (entries.file ne path) {
          path = entries.file
          pathValue = UTF8String.fromString(path.toString)
        }
        batch.add(entry, pathValue)
      } else counters.linesFiltered.add(1)
    }
    val rows = batch.columns.numRows()
    counters.linesRead.add(rows)
    counters.linesInvalidEncoding.add(batch.invalidFields - invalidBefore)
    rows > 0
  }

  private def lost(count: Long): Unit = {
    // A task killed as it read (its query stopped): its reads failed, not its entries.
    if (Thread.currentThread().isInterrupted) throw new ClosedByInterruptException()
    val what = s"${range.host}: journal sequence $seqnumId, entries ${range.from} to " +
      s"${range.from + count} of ${range.from} to ${range.until}; journald removed them " +
      "(its vacuum, SystemMaxUse or MaxRetentionSec) before they were read"
    DataLoss.handle(what, failOnDataLoss, JournalRangeReader.log.warn(_))
    counters.bytesLost.add(count)
  }

  override def close(): Unit = entries.close()
}

object JournalRangeReader {
  private val log = LoggerFactory.getLogger(classOf[JournalRangeReader])
}
