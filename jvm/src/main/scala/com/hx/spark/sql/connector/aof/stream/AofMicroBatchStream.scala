package com.hx.spark.sql.connector.aof.stream

import java.util.{Optional, UUID}
import java.util.concurrent.{Executors, RejectedExecutionException, TimeUnit, TimeoutException}

import scala.collection.JavaConverters._
import scala.concurrent.Await
import scala.concurrent.duration.Duration

import org.apache.spark.FutureAction
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{
  MicroBatchStream,
  Offset,
  ReadAllAvailable,
  ReadLimit,
  ReportsSourceMetrics,
  SupportsTriggerAvailableNow
}
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.files.FileMeta
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{PlanChanges, PlanLimits, Planner, Ranges, Tasks}
import com.hx.spark.sql.connector.aof.zookeeper.{DriverSession, EndpointSpec, MessageSeal}

/**
 * The driver's side of one query run. Per trigger it makes sure every host has an endpoint, asks
 * them for their files through ZooKeeper and plans the next offset; the batch's partitions come
 * from its two offsets alone. The checkpoint holds the offsets; ZooKeeper keeps a backup that a
 * query on a new checkpoint resumes from.
 */
final class AofMicroBatchStream(options: AofOptions, checkpointLocation: String)
    extends MicroBatchStream
    with SupportsTriggerAvailableNow
    with ReportsSourceMetrics {
  private val log = LoggerFactory.getLogger(getClass)
  private val runId = UUID.randomUUID().toString
  private val runKey = MessageSeal.newKey()
  private val spark = SparkSession.active

  @volatile private var opened: Option[DriverSession] = None

  private def session: DriverSession = synchronized {
    opened.getOrElse {
      val bindHost = spark.sparkContext.getConf.get("spark.driver.host", SparkExecutors.currentHost)
      val s = DriverSession.open(
        options.zookeeperAddress,
        bindHost,
        options.zookeeperSessionTimeoutMs,
        options.zookeeperAuth,
        options.metaStore,
        runId,
        runKey,
        (task, reason) => spark.sparkContext.killTaskAttempt(task, interruptThread = true, reason)
      )
      opened = Some(s)
      s
    }
  }

  private def spec: EndpointSpec = EndpointSpec(
    runId,
    session.access,
    options.metaStore,
    options.directory.toString,
    options.fileNameRegex,
    options.md5SampleLength,
    runKey,
    options.nodeNameEnv)

  // Under Trigger.AvailableNow every batch plans against the files as they were when it began.
  @volatile private var availableNow: Option[Option[Map[String, Seq[FileMeta]]]] = None
  @volatile private var lastReports: Map[String, Seq[FileMeta]] = Map.empty
  @volatile private var hostsWithoutEndpoint: Set[String] = Set.empty
  @volatile private var plannedLoss = 0L
  @volatile private var launching: Option[FutureAction[Seq[(String, String)]]] = None
  private val nodes = new ExecutorNodes(options.nodeNameEnv.isDefined)
  @volatile private var launched = Set.empty[(String, String)]
  @volatile private var backedUp: Option[String] = None
  @volatile private var backingUp = false
  private val backups = Executors.newSingleThreadExecutor { r =>
    val t = new Thread(r, "aof-offset-backup")
    t.setDaemon(true)
    t
  }
  private val counters = ReadCounters.register(spark.sparkContext)
  private val warnings =
    new ReportWarnings(options.directory.toString, log.warn(_), log.info(_))

  override def initialOffset(): Offset = session.backup.read() match {
    case Some(json) =>
      log.info(s"aof: no checkpointed offsets; resuming from the backup in ${options.metaStore}")
      AofOffset.fromJson(json)
    case None => AofOffset.Empty
  }

  // Spark parses the previous batch's end back from its JSON at every trigger: keep the last.
  @volatile private var parsed: Option[(String, AofOffset)] = None

  override def deserializeOffset(json: String): Offset = parsed match {
    case Some((j, offset)) if (j eq json) || j == json => offset
    case _ =>
      val offset = AofOffset.fromJson(json)
      parsed = Some(json -> offset)
      offset
  }

  override def getDefaultReadLimit: ReadLimit =
    options.bytesMax.fold(ReadLimit.allAvailable())(ReadMaxBytes(_))

  override def latestOffset(): Offset = throw new UnsupportedOperationException(
    "aof: latestOffset(start, limit) is the entry point of this source")

  override def latestOffset(startOffset: Offset, limit: ReadLimit): Offset = {
    backUpCommittedSoon()
    val start = AofOffset.of(startOffset)
    val reports = availableNow match {
      case Some(Some(frozen)) => frozen
      case Some(None) =>
        val now = collect(start, everyHost = true)
        availableNow = Some(Some(now))
        now
      case None => collect(start, everyHost = false)
    }
    lastReports = reports
    val bytesMax = limit match {
      case _: ReadAllAvailable => None
      case ReadMaxBytes(n) => Some(n)
      case other => throw new IllegalArgumentException(s"aof: unsupported read limit $other")
    }
    val plan = Planner.plan(
      start,
      reports,
      PlanLimits(bytesMax, options.startingOffsets, options.md5CheckEnabled))
    PlanChanges.between(start, plan.end).foreach(c => log.info(s"aof: $c"))
    if (plan.losses.nonEmpty) {
      val what = plan.losses.mkString("; ")
      if (options.failOnDataLoss) {
        throw new IllegalStateException(
          s"aof: bytes went before they were read: $what. Set fail.on.data.loss=false to log " +
            "and count such losses instead.")
      }
      log.warn(s"aof: bytes went before they were read (deleted, truncated or replaced): $what")
      plannedLoss += plan.losses.map(_.bytes).sum
    }
    plan.end
  }

  override def prepareForTriggerAvailableNow(): Unit = availableNow = Some(None)

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val ranges = Ranges.between(AofOffset.of(start), AofOffset.of(end))
    val slots = SparkExecutors.slots(spark.sparkContext)
    val hosts = nodes.hostsByNode(slots.keys)
    def slotsOf(node: String) = hosts.get(node).fold(1)(_.map(slots).sum)
    def locations(node: String) =
      if (options.nodeNameEnv.isEmpty) Nil else hosts.getOrElse(node, Nil)
    Tasks
      .deal(ranges, slotsOf, options.partitionBytesMax, FilesOpenCost.of(spark))
      .map(rs =>
        AofInputPartition(rs, options.directory.toString, locations(rs.head.host)): InputPartition)
      .toArray
  }

  override def createReaderFactory(): PartitionReaderFactory =
    new AofReaderFactory(options.lineLengthMax, options.failOnDataLoss, counters, spec)

  override def commit(end: Offset): Unit = backUpCommittedSoon()

  override def stop(): Unit = synchronized {
    launching.foreach(_.cancel())
    backups.shutdown()
    backups.awaitTermination(30, TimeUnit.SECONDS)
    opened.foreach { s =>
      backUpCommitted(s)
      s.close(runId)
    }
    opened = None
  }

  override def metrics(latestConsumedOffset: Optional[Offset]): java.util.Map[String, String] = {
    val consumed = AofOffset.of(latestConsumedOffset.orElse(AofOffset.Empty))
    val lost = plannedLoss + counters.bytesLost.value
    (SourceMetrics.of(consumed, lastReports, hostsWithoutEndpoint) ++ Map(
      "bytesLost" -> lost.toString,
      "linesTruncated" -> counters.linesTruncated.value.toString)).asJava
  }

  override def toString: String = s"aof[${options.directory}/${options.fileNameRegex}]"

  /**
   * Copies the checkpoint's last committed offsets to ZooKeeper when they changed. Read from the
   * checkpoint rather than taken from `commit`, which Spark calls only when the next batch starts:
   * so the backup trails the sink by at most a trigger, also after a crash.
   */
  private def backUpCommitted(to: DriverSession): Unit =
    try {
      val committed =
        new CommittedOffsets(spark.sparkContext.hadoopConfiguration, checkpointLocation)
          .latestJson()
      if (committed.nonEmpty && committed != backedUp) {
        to.backup.write(committed.get)
        backedUp = committed
      }
    } catch { case e: Exception => log.warn(s"aof: could not back up the committed offsets: $e") }

  /** Off the trigger's path: with thousands of files the offsets are megabytes to read and zip. */
  private def backUpCommittedSoon(): Unit =
    if (!backingUp && !backups.isShutdown) {
      backingUp = true
      val to = session // taken here: `session` locks the stream, which `stop` holds
      try
        backups.execute(() =>
          try backUpCommitted(to)
          finally backingUp = false)
      catch { case _: RejectedExecutionException => backingUp = false }
    }

  /**
   * The first launch is waited for until `deadline`, so that the first trigger (all of
   * AvailableNow's) sees every host; later ones run on, so that a hung executor holds no
   * trigger up.
   */
  private def startEndpoints(executors: Seq[(String, String)], deadline: Long): Unit = {
    val first = launching.isEmpty
    if (launching.forall(_.isCompleted)) {
      val job = EndpointLauncher.launch(spark.sparkContext, executors, spec)
      launching = Some(job)
      launched ++= executors
      if (first) {
        try Await.ready(job, Duration.fromNanos(math.max(0L, deadline - System.nanoTime())))
        catch { case _: TimeoutException => log.warn("aof: some endpoints did not start in time") }
      }
    }
  }

  /**
   * What the hosts report. A run's first trigger waits up to `start.await.timeout` for every
   * host with an executor, later ones up to `meta.await.timeout`. With `everyHost` (the first
   * trigger of `AvailableNow`, which plans all its batches from it) a host with an executor that
   * did not answer fails the query: finishing without it would skip what it held at start.
   */
  private def collect(start: AofOffset, everyHost: Boolean): Map[String, Seq[FileMeta]] = {
    val first = launching.isEmpty
    val (waitMs, waitOption) =
      if (first) (options.startAwaitTimeoutMs, "start.await.timeout")
      else (options.metaAwaitTimeoutMs, "meta.await.timeout")
    val deadline = System.nanoTime() + waitMs * 1000000L
    val coordinator = session.coordinator
    val executors = EndpointLauncher.executorsByHost(spark.sparkContext)
    nodes.learn(launching)
    val before = coordinator.liveHosts()
    // Hosts without an endpoint, and executors that joined since (stand-bys to be).
    val toLaunch = executors.toSeq
      .flatMap { case (host, ids) => ids.map(host -> _) }
      .filter(e => !nodes.of(e._1).exists(before) || !launched(e))
    // Asked before the launch: an endpoint answers the request it finds as soon as it serves.
    def ask(hosts: Set[String]) =
      coordinator.ask(hosts.map(h => h -> Planner.known(start, h)).toMap)
    val asked = ask(before ++ executors.keySet.flatMap(nodes.of))
    if (toLaunch.nonEmpty) startEndpoints(toLaunch, deadline)
    nodes.learn(launching)
    val wanted = executors.keySet.flatMap(nodes.of)
    // Executors whose node is not known yet: their launch task has not run.
    val unknown = executors.keySet.filter(nodes.of(_).isEmpty)
    val answers = coordinator.answers(
      asked ++ ask(wanted -- asked.hosts),
      math.max(0L, (deadline - System.nanoTime()) / 1000000L))
    warnings.update(answers)
    val reports = answers.files
    val live = coordinator.liveHosts()
    hostsWithoutEndpoint = wanted -- live ++ unknown
    if (hostsWithoutEndpoint.nonEmpty) {
      log.warn(s"aof: no endpoint on ${hostsWithoutEndpoint.mkString(", ")}; their files wait")
    }
    val unheard = wanted -- reports.keySet -- answers.unlisted.keySet ++ unknown
    if (everyHost && unheard.nonEmpty) {
      throw new IllegalStateException(
        s"aof: ${unheard.toSeq.sorted.mkString(", ")} did not answer within $waitMs ms " +
          s"($waitOption). Trigger.AvailableNow reads what every host with an executor holds " +
          s"at its start, so it stops rather than finish without them: raise $waitOption, or " +
          "find why their executors do not run.")
    }
    val silent = live -- reports.keySet -- answers.unlisted.keySet
    if (silent.nonEmpty) {
      log.warn(
        s"aof: ${silent.mkString(", ")} did not answer within $waitMs ms ($waitOption); " +
          "planning without them")
    }
    reports
  }
}
