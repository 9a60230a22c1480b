package com.hx.spark.sql.connector.aof.follow

import java.io.Closeable
import java.time.Clock

import org.apache.spark.sql.catalyst.InternalRow
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.backlog.{SourceMetrics, WriteTimes}
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopies
import com.hx.spark.sql.connector.aof.files.identity.FileMeta
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.metrics.{Gauges, MetricDefinitions}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.plan.{
  CopiesLookedFor, FileRange, News, PlanLimits, PlanMemos, Planner, Ranges
}
import com.hx.spark.sql.connector.aof.read.{DataLoss, FileRangeReader, LineBatch, ReadCounters}
import com.hx.spark.sql.connector.aof.zookeeper.PlanJournal

/**
 * One host's files, followed from inside a long-running task (real-time mode): the node looks at
 * its files, the [[Planner]] plans from what was read so far, the lines planned are read, and
 * again. The same scanner, planner and reader as a micro-batch, so the same rules for rotation,
 * copies, losses and ids; only the loop moved from the driver into the task.
 *
 * [[offset]] is where every row returned so far ends, also in the middle of a plan: a file read
 * part way stands at the start of its next line (with no tail fingerprint, as a batch cut by
 * `bytes.max` does), one not started yet at its start. So a batch may end after any row.
 *
 * Each plan is kept in the `journal` before its rows are returned, and a task that starts where
 * an earlier one started reads that one's plans first ([[PlanJournal]]).
 *
 * @param start this host's offsets when the task started; None for a host the query has no
 *              offsets for yet (`starting.offsets` applies to it, as in a micro-batch)
 * @param drained told each time every row of a plan was returned, before the follower looks
 *                again or its task waits: where the sink flushes the rows read together
 */
final class HostFollower(
    host: String,
    start: Option[HostOffsets],
    endpoint: EndpointSpec,
    limits: PlanLimits,
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    journal: PlanJournal,
    clock: Clock = Clock.systemUTC(),
    looks: FollowerLooks = FollowerLooks.Always,
    drained: () => Unit = () => ())
    extends Closeable {
  private val log = LoggerFactory.getLogger(getClass)
  private val scanner = new DirectoryScanner(
    endpoint.files,
    endpoint.md5SampleLength,
    endpoint.read.grouping,
    clock = clock,
    identity = endpoint.read.identity,
    ignoreOlderMs = endpoint.ignoreOlderMs,
    ending = endpoint.read.ending,
    changes = looks.changes
  )
  private val copies = new UnmatchedCopies(endpoint.md5SampleLength)
  private val memos = new PlanMemos
  // Every plan's lines, one plan at a time.
  private val batch = LineBatch.of(endpoint, 0L)
  private var done = AofOffset(start.fold(Map.empty[String, HostOffsets])(o => Map(host -> o)))
  private var reading: Option[Reading] = None
  private var lookCount = 0L
  // Names each look apart from every other task's: a retired file counts each look once.
  private val task = java.util.UUID.randomUUID().toString
  private var replay = journal.planned.toList
  // The host's backlog at the last look, while the task runs: the driver sees it only at the
  // batch's end.
  private val writeTimes = new WriteTimes
  @volatile private var behind = Map.empty[String, Long]
  private val gauges = Gauges.group(s"endpoint.${Gauges.part(endpoint.metaStore)}", () => behind)
  gauges.sync(Set(MetricDefinitions.BytesBehind.name, MetricDefinitions.SecondsBehind.name))

  /**
   * Moves to the next row when there is one to read now, looking at the files again once every
   * planned line was read and a look is due (`looks`, or a file retired); false when none is, or
   * a fresh look finds nothing new. Never waits for a write.
   */
  def next(): Boolean = {
    while (true) {
      reading match {
        case Some(r) if r.next() => return true
        case Some(r) =>
          r.close()
          done = r.end
          reading = None
          drained()
        case None if replay.nonEmpty =>
          val end = AofOffset(Map(host -> replay.head))
          replay = replay.tail
          reading = Some(new Reading(done, end, Ranges.between(done, end), clock.millis()))
        // A retired file is given up only once a look found no copy of it: one look, due now.
        case None if !looks.due && Planner.retired(done, host).isEmpty => return false
        case None =>
          val (end, ranges) = planNext()
          if (ranges.isEmpty) {
            done = end
            return false
          }
          reading = Some(new Reading(done, end, ranges, clock.millis()))
      }
    }
    false
  }

  /** The row `next` moved to: valid until the next call. */
  def row: InternalRow = reading.get.row

  /** This host's offsets just after the last row returned. */
  def offset: Option[HostOffsets] = reading.fold(done)(_.offset).hosts.get(host)

  override def close(): Unit =
    try reading.foreach(_.close())
    finally
      try journal.close()
      finally gauges.close()

  private def planNext(): (AofOffset, Seq[FileRange]) = {
    lookCount += 1
    val retired = Planner.retired(done, host)
    val wholeBefore = scanner.wholeListings
    looks.looking()
    val files = scanner.scan(Planner.known(done, host), retired)
    val (settlesIn, whole) = (scanner.nextSettlingMs, scanner.wholeListings > wholeBefore)
    val unmatched = copies.of(retired, files, scanner.unreadFiles)
    val looked = Map(host -> CopiesLookedFor(s"$task-$lookCount", retired.keySet, unmatched))
    val plan = Planner.plan(done, Map(host -> files), limits, looked, memos = memos)
    if (Gauges.enabled) noteBehind(files)
    if (plan.losses.nonEmpty) {
      DataLoss.handle(DataLoss.of(plan.losses, endpoint.files), failOnDataLoss, log.warn(_))
      counters.bytesLost.add(plan.losses.map(_.bytes).sum)
    }
    val ranges = Ranges.between(done, plan.end)
    // Kept before any of its rows is returned; part of the look's time, which spaces looks.
    if (ranges.nonEmpty) journal.keep(plan.end.hosts(host))
    looks.looked(settlesIn, whole)
    (plan.end, ranges)
  }

  /** The gauges' figures at this look: only with the plugin, which shows them. */
  private def noteBehind(files: Seq[FileMeta]): Unit = {
    val news = News(Map(host -> files))
    writeTimes.observe(news, done, clock.millis())
    val figures = SourceMetrics.of(done, news, writeTimes, clock.millis())
    behind = Seq(MetricDefinitions.BytesBehind, MetricDefinitions.SecondsBehind)
      .map(d => d.name -> figures(d.name))
      .toMap
  }

  /** The ranges of one plan, read in turn; `from` and `end` are the plan's two offsets. */
  private final class Reading(from: AofOffset, val end: AofOffset, ranges: Seq[FileRange], at: Long)
      extends Closeable {
    batch.renew(at)
    private var index = 0
    private var reader: Option[FileRangeReader] = None
    private var rowIndex = -1

    def next(): Boolean = {
      if (rowIndex + 1 < batch.columns.numRows) {
        rowIndex += 1
        return true
      }
      while (index < ranges.size) {
        if (reader.isEmpty) {
          reader = Some(FileRangeReader.of(ranges(index), endpoint, failOnDataLoss, counters))
        }
        if (reader.get.nextBatch(batch)) {
          rowIndex = 0
          return true
        }
        reader.get.close()
        reader = None
        index += 1
      }
      false
    }

    def row: InternalRow = batch.columns.getRow(rowIndex)

    /** `end`, with the files not read to their end yet where their next line starts. */
    def offset: AofOffset = {
      val here = end.hosts(host)
      val behind = ranges.zipWithIndex.flatMap { case (range, i) =>
        val at =
          if (i < index) range.until
          else if (i > index) range.from
          else if (rowIndex + 1 < batch.columns.numRows) batch.offsetAt(rowIndex + 1)
          else reader.fold(range.from)(_.resumeAt)
        if (at >= range.until) None
        else {
          val tail = from.file(host, range.fileId).filter(_.pos == at).flatMap(_.tail)
          Some(range.fileId -> here.files(range.fileId).copy(pos = at, tail = tail))
        }
      }
      end.copy(hosts = end.hosts + (host -> here.copy(files = here.files ++ behind)))
    }

    override def close(): Unit = reader.foreach(_.close())
  }
}
