package com.hx.spark.sql.connector.aof.stream

import java.util.{Optional, UUID}

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
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
import com.hx.spark.sql.connector.aof.plan.{PlanLimits, Planner, Ranges}
import com.hx.spark.sql.connector.aof.zookeeper.{
  Coordinator,
  EmbeddedZooKeeper,
  EndpointSpec,
  OffsetBackup,
  SnifferEndpoints,
  ZkClients
}

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
  private val spark = SparkSession.active

  private lazy val embedded: Option[EmbeddedZooKeeper.Lease] = options.zookeeperAddress match {
    case Some(_) => None
    case None =>
      val bindHost = spark.sparkContext.getConf.get("spark.driver.host", ExecutorHost.current)
      Some(EmbeddedZooKeeper.acquire(bindHost))
  }
  private lazy val connectString: String =
    options.zookeeperAddress.getOrElse(embedded.get.connectString)
  private lazy val client: CuratorFramework = ZkClients.open(connectString)
  private lazy val coordinator: Coordinator = {
    val c = new Coordinator(client, options.metaStore, runId)
    c.start()
    c
  }
  private lazy val backup = new OffsetBackup(client, options.metaStore)
  private lazy val spec = EndpointSpec(
    runId,
    connectString,
    options.metaStore,
    options.directory.toString,
    options.fileNameRegex,
    options.md5SampleLength)

  // Under Trigger.AvailableNow every batch plans against the files as they were when it began.
  @volatile private var availableNow: Option[Option[Map[String, Seq[FileMeta]]]] = None
  @volatile private var lastReports: Map[String, Seq[FileMeta]] = Map.empty
  @volatile private var hostsWithoutEndpoint: Set[String] = Set.empty
  @volatile private var connected = false

  override def initialOffset(): Offset = backup.read() match {
    case Some(json) =>
      log.info(s"aof: no checkpointed offsets; resuming from the backup in ${options.metaStore}")
      AofOffset.fromJson(json)
    case None => AofOffset.Empty
  }

  override def deserializeOffset(json: String): Offset = AofOffset.fromJson(json)

  override def getDefaultReadLimit: ReadLimit =
    options.bytesMax.fold(ReadLimit.allAvailable())(ReadMaxBytes(_))

  override def latestOffset(): Offset = throw new UnsupportedOperationException(
    "aof: latestOffset(start, limit) is the entry point of this source")

  override def latestOffset(startOffset: Offset, limit: ReadLimit): Offset = {
    val start = startOffset.asInstanceOf[AofOffset]
    val reports = availableNow match {
      case Some(Some(frozen)) => frozen
      case Some(None) =>
        val now = collect(start)
        availableNow = Some(Some(now))
        now
      case None => collect(start)
    }
    lastReports = reports
    val bytesMax = limit match {
      case _: ReadAllAvailable => None
      case ReadMaxBytes(n) => Some(n)
      case other => throw new IllegalArgumentException(s"aof: unsupported read limit $other")
    }
    Planner.plan(
      start,
      reports,
      PlanLimits(bytesMax, options.startingOffsets, options.md5CheckEnabled))
  }

  override def prepareForTriggerAvailableNow(): Unit = availableNow = Some(None)

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] =
    Ranges
      .between(
        start.asInstanceOf[AofOffset],
        end.asInstanceOf[AofOffset],
        options.partitionBytesMax)
      .map(r => AofInputPartition(r, options.directory.toString): InputPartition)
      .toArray

  override def createReaderFactory(): PartitionReaderFactory =
    new AofReaderFactory(options.lineLengthMax)

  override def commit(end: Offset): Unit = backup.write(end.json())

  override def stop(): Unit = {
    // Only tear down what was started: a query stopped before its first trigger has no session.
    if (connected) {
      try new CommittedOffsets(spark, checkpointLocation).latestJson().foreach(backup.write)
      catch { case e: Exception => log.warn(s"aof: could not back up the last offsets: $e") }
      coordinator.stop()
      // In local mode the endpoint shares this JVM: let it close before its server goes.
      SnifferEndpoints.stop(runId)
      client.close()
    }
    embedded.foreach(_.release())
  }

  override def metrics(latestConsumedOffset: Optional[Offset]): java.util.Map[String, String] = {
    val consumed = latestConsumedOffset.orElse(AofOffset.Empty).asInstanceOf[AofOffset]
    SourceMetrics.of(consumed, lastReports, hostsWithoutEndpoint).asJava
  }

  override def toString: String = s"aof[${options.directory}/${options.fileNameRegex}]"

  private def collect(start: AofOffset): Map[String, Seq[FileMeta]] = {
    connected = true
    val wanted = EndpointLauncher.executorHosts(spark.sparkContext)
    val missing = wanted -- coordinator.liveHosts()
    if (missing.nonEmpty) {
      EndpointLauncher.launch(spark.sparkContext, missing, spec)
      coordinator.awaitHosts(missing, options.metaAwaitTimeoutMs)
    }
    val live = coordinator.liveHosts()
    hostsWithoutEndpoint = wanted -- live
    if (hostsWithoutEndpoint.nonEmpty) {
      log.warn(s"aof: no endpoint on ${hostsWithoutEndpoint.mkString(", ")}; their files wait")
    }
    val reports = coordinator.collect(
      live.map(h => h -> Planner.known(start, h)).toMap,
      options.metaAwaitTimeoutMs)
    val silent = live -- reports.keySet
    if (silent.nonEmpty) {
      log.warn(
        s"aof: ${silent.mkString(", ")} did not answer within " +
          s"${options.metaAwaitTimeoutMs} ms (meta.await.timeout); planning without them")
    }
    reports
  }
}
