package com.hx.spark.sql.connector.aof.stream

import java.time.Clock
import java.util.{Locale, Optional}

import scala.collection.JavaConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{
  MicroBatchStream, Offset, ReadAllAvailable, ReadLimit, ReportsSourceMetrics,
  SupportsTriggerAvailableNow
}
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.driver.QueryRun
import com.hx.spark.sql.connector.aof.metrics.{MetricDefinitions => M}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, OffsetJson, OffsetSnapshots}
import com.hx.spark.sql.connector.aof.plan.{
  FileRange, News, Plan, PlanChanges, PlanLimits, PlanMemos, Planner, Ranges, Tasks
}
import com.hx.spark.sql.connector.aof.read.{DataLoss, ReadCounters}
import com.hx.spark.sql.connector.aof.shim.{SparkExecutors, StopWarnings}

/**
 * What Spark calls for one query run, translated: the offsets are planned by the pure [[Planner]]
 * from what the hosts report, a batch's partitions come from its two offsets alone, and the run
 * (`QueryRun`: the hosts, their endpoints, the offset backup) is passed in, so that this class
 * holds no coordination of its own. The checkpoint holds the offsets, each on a snapshot of the
 * files written once (`snapshots`), so that idle files do not weigh on every batch.
 *
 * Spark 4.1 and newer run a subclass that adds real-time mode (`realtime.AofRealTimeStream`).
 *
 * @param clock when a trigger plans: the `timestamp` of the lines it plans, kept in the offset,
 *              and whether a batch below `batch.bytes.min` has waited long enough
 */
class AofMicroBatchStream(
    spark: SparkSession,
    options: AofOptions,
    run: QueryRun,
    snapshots: OffsetSnapshots,
    clock: Clock = Clock.systemUTC())
    extends MicroBatchStream
    with SupportsTriggerAvailableNow
    with ReportsSourceMetrics {
  private val log = LoggerFactory.getLogger(getClass)
  protected val counters: ReadCounters = ReadCounters.register(spark.sparkContext)
  StopWarnings.quiet
  private val figures = new StreamFigures(spark, run, counters, clock)
  private val held = new HeldNews
  private val memos = new PlanMemos
  @volatile private var availableNow = false

  // Only when asked: a backup may be another query's, whose offsets would skip what is there.
  override def initialOffset(): Offset = run.backedUp() match {
    case Some(json) if options.resumeFromBackup =>
      log.info(s"aof: no checkpointed offsets; resuming from the backup in ${options.metaStore}")
      AofOffset.fromJson(json)
    case Some(_) =>
      val start = options.startingOffsets.toString.toLowerCase(Locale.ROOT)
      log.warn(
        s"aof: a new checkpoint: files start where starting.offsets says ($start), not from " +
          s"the offset backup in ${options.metaStore}. To resume from it (a driver that lost " +
          "its checkpoint), set resume.from.backup=true.")
      AofOffset.Empty
    case None => AofOffset.Empty
  }

  private val recent = new RecentOffsets(json => OffsetJson.read(json, snapshots.read))

  override def deserializeOffset(json: String): Offset = recent.parsed(json)

  // With `nodes` or `batch.bytes.min`, a limit of the source's own even when unbounded: Spark
  // replaces it with ReadAllAvailable under Trigger.Once alone, which must then read every node,
  // as AvailableNow, and never wait for a minimum.
  override def getDefaultReadLimit: ReadLimit =
    if (options.bytesMax.isEmpty && options.batchBytesMax.isEmpty && options.nodes.isEmpty &&
      options.batchMinimum.isEmpty) {
      ReadLimit.allAvailable()
    } else ReadMaxBytes(options.bytesMax, options.batchBytesMax)

  override def latestOffset(): Offset = throw new UnsupportedOperationException(
    "aof: latestOffset(start, limit) is the entry point of this source")

  override def latestOffset(startOffset: Offset, limit: ReadLimit): Offset = {
    run.backUpSoon()
    val began = System.nanoTime()
    val start = offsetOf(startOffset)
    val (perFile, perBatch) = limit match {
      case _: ReadAllAvailable =>
        if (options.nodes.nonEmpty) run.freezeAtNextTrigger() // Trigger.Once
        (None, None)
      case ReadMaxBytes(file, batch) => (file, batch)
      case other => throw new IllegalArgumentException(s"aof: unsupported read limit $other")
    }
    def planned(news: News, bounded: Boolean = true) = Planner.plan(
      start,
      news.files,
      PlanLimits(
        perFile.filter(_ => bounded),
        options.startingOffsets,
        options.read.identity,
        perBatch.filter(_ => bounded)),
      news.looked,
      run.nodesRead.flatMap(_.expected).getOrElse(Set.empty),
      memos
    )
    // `batch.bytes.min` is weighed against all there is to read, as Kafka's `minOffsetsPerTrigger`
    // is: batches bounded below it would each wait the whole delay.
    def waiting(news: News, plan: Plan) = waits(start, limit) {
      if (perFile.isEmpty && perBatch.isEmpty) plan.end else planned(news, bounded = false).end
    }
    val heard = run.news(start)
    figures.observe(heard, start)
    val first = held.along(start, heard)
    // Nothing new from the news alone, or too little: every host looks, so that "no new data"
    // holds for every byte written before the trigger began (and a trigger that waits for
    // `batch.bytes.min` waits for news as an idle one does, rather than at once again).
    val (news, plan) = Some(first -> planned(first))
      .filter { case (r, p) => !AofOffset.sameHosts(p.end.hosts, start.hosts) && !waiting(r, p) }
      .getOrElse {
        if (options.batchMinimum.nonEmpty) held.hold(start, first)
        val looked = run.news(start, look = true)
        figures.observe(looked, start)
        val all = held.along(start, looked)
        all -> planned(all)
      }
    figures.planned(start, (System.nanoTime() - began) / 1000000L)
    if (waiting(news, plan)) {
      held.hold(start, news)
      start // so Spark runs no batch; the plan's losses are found again when one runs
    } else {
      held.clear()
      PlanChanges.between(start, plan.end).foreach(c => log.info(s"aof: $c"))
      if (plan.losses.nonEmpty) {
        DataLoss.handle(
          DataLoss.of(plan.losses, options.files),
          options.failOnDataLoss,
          log.warn(_))
        figures.lost(plan.losses.map(_.bytes).sum)
      }
      // An offset with no new files is the start itself: the same JSON, so Spark runs no batch.
      val end = snapshots.rebase(start, plan.end.copy(plannedAtMs = Some(clock.millis())))
      // Its JSON is what Spark writes to its offset log next.
      recent.keep(end.json(), end)
    }
  }

  /**
   * Whether a trigger from `start` runs no batch, for want of `batch.bytes.min` bytes up to
   * `available`. Never under `Trigger.AvailableNow` or `Once` (`ReadAllAvailable`): they read
   * what there is, then stop.
   */
  private def waits(start: AofOffset, limit: ReadLimit)(available: => AofOffset): Boolean =
    !availableNow && !limit.isInstanceOf[ReadAllAvailable] && options.batchMinimum.exists { m =>
      val end = available
      !AofOffset.sameHosts(end.hosts, start.hosts) &&
      !m.worth(Ranges.bytes(start, end), start.plannedAtMs, clock.millis())
    }

  override def prepareForTriggerAvailableNow(): Unit = {
    availableNow = true // what exists now is read at once: no batch waits for `batch.bytes.min`
    run.freezeAtNextTrigger()
  }

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val last = offsetOf(end)
    val ranges = Ranges.between(offsetOf(start), last)
    // An offset of a version that did not keep the time: planned now, as far as can be known.
    val plannedAt = last.plannedAtMs.getOrElse(clock.millis())
    val slots = SparkExecutors.slots(spark.sparkContext)
    val byNode = run.hostsByNode(slots.keys)
    def slotsOf(node: String) = byNode.get(node).fold(1)(_.map(slots).sum)
    def locations(node: String) =
      if (options.nodeNameEnv.isEmpty) Nil else byNode.getOrElse(node, Nil)
    Tasks
      .deal(
        ranges,
        slotsOf,
        options.partitionBytesMax,
        FilesOpenCost.of(spark),
        cuttable = options.read.grouping.isEmpty,
        cutsOf = messageCuts)
      .map(rs => AofInputPartition(rs, locations(rs.head.host), plannedAt): InputPartition)
      .toArray
  }

  /**
   * Where a range of a container runtime's messages may be cut between tasks: the clean positions
   * its node reported for the same bytes (the head planned). Any clean position is one for every
   * reader, so a replay that lacks them only reads the range in one task. Multi-line records are
   * not cut: where one starts may depend on where reading started (`multiline.bytes.max`).
   */
  private def messageCuts(range: FileRange): Seq[Long] =
    if (options.read.grouping.exists(_.multiline)) Nil
    else {
      run.lastNews.everyHost
        .getOrElse(range.host, Nil)
        .find(m => m.key == range.key && m.fingerprint == range.head)
        .fold(Seq.empty[Long])(_.cuts)
    }

  override def createReaderFactory(): PartitionReaderFactory =
    new AofReaderFactory(options.failOnDataLoss, counters, run.endpoint)

  override def commit(end: Offset): Unit = {
    run.commit(offsetOf(end))
    run.backUpSoon()
    snapshots.forgetUnused()
  }

  override def stop(): Unit =
    try figures.close()
    finally run.stop()

  override def metrics(latestConsumedOffset: Optional[Offset]): java.util.Map[String, String] = {
    val consumed = offsetOf(latestConsumedOffset.orElse(AofOffset.Empty))
    // Where `pyspark-aof status` finds the query: the embedded server's address is known only here.
    val whereStored = Map(M.MetaStore.name -> options.metaStore) ++
      run.zookeeperAddress.map(M.ZooKeeperAddress.name -> _)
    (figures.of(consumed).map { case (k, v) => k -> v.toString } ++ whereStored ++
      run.nodesRead.fold(Map.empty[String, String])(_.metrics)).asJava
  }

  protected def offsetOf(offset: Offset): AofOffset = offset match {
    case o: AofOffset => o
    case other => deserializeOffset(other.json()).asInstanceOf[AofOffset]
  }

  override def toString: String = s"aof[${options.files}]"
}
