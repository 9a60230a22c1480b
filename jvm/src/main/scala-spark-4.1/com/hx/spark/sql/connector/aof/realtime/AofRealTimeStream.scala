package com.hx.spark.sql.connector.aof.realtime

import java.time.Clock

import org.apache.curator.framework.CuratorFramework
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{
  Offset, PartitionOffset, ReadLimit, SupportsRealTimeMode
}

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.driver.QueryRun
import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets, OffsetSnapshots}
import com.hx.spark.sql.connector.aof.plan.PlanLimits
import com.hx.spark.sql.connector.aof.shim.SparkExecutors
import com.hx.spark.sql.connector.aof.stream.AofMicroBatchStream
import com.hx.spark.sql.connector.aof.zookeeper.{JournalCopies, ZkClients}

/**
 * The stream on Spark 4.1 and newer: a micro-batch stream that also runs in real-time mode
 * (`trigger(realTime=...)`). There each batch is one long task per host, which follows that
 * host's files and returns lines as they are written ([[RealTimeReader]]); the batch's end is
 * where each task stopped, merged here. The driver still asks the hosts at each batch's start,
 * for which hosts have files to follow and for `status`, but plans nothing itself.
 */
final class AofRealTimeStream(
    spark: SparkSession,
    options: AofOptions,
    run: QueryRun,
    snapshots: OffsetSnapshots,
    sourceCheckpoint: String,
    clock: Clock)
    extends AofMicroBatchStream(spark, options, run, snapshots, clock)
    with SupportsRealTimeMode {
  @volatile private var realTime = false
  @volatile private var hosts = Set.empty[String]
  @volatile private var batchStart = AofOffset.Empty
  @volatile private var starts = Map.empty[String, Option[HostOffsets]]
  private val journals =
    new JournalCopies(spark.sparkContext.hadoopConfiguration, sourceCheckpoint, options.metaStore)
  private var opened: Option[CuratorFramework] = None

  private def client: CuratorFramework = synchronized {
    opened.getOrElse {
      val c = ZkClients.open(run.endpoint.zk, options.metaStore)
      opened = Some(c)
      c
    }
  }

  override def prepareForRealTimeMode(): Unit = {
    val limits = Seq(
      "bytes.max" -> options.bytesMax,
      "batch.bytes.max" -> options.batchBytesMax,
      "batch.bytes.min" -> options.batchMinimum).collect { case (k, Some(_)) => k }
    if (limits.nonEmpty) {
      throw new IllegalArgumentException(
        s"aof: ${limits.mkString(" and ")} bound micro-batches; real-time mode reads each line " +
          "as it is written, one task per host. Remove them, or use a processing-time trigger.")
    }
    options.read.grouping.map(_.format).filter(_.byRuntime).foreach { f =>
      throw new IllegalArgumentException(
        s"aof: format '${f.name}' is read in micro-batches only: a real-time task may stop " +
          "between two chunks of a long line, where no position says which rows were read. " +
          "Use a processing-time trigger, or format 'text'.")
    }
    if (options.read.journal.nonEmpty) {
      throw new IllegalArgumentException(
        "aof: format 'journald' is read in micro-batches only, for now: a real-time task " +
          "follows files' lines. Use a processing-time trigger (docs/journal.md).")
    }
    realTime = true
  }

  override def latestOffset(startOffset: Offset, limit: ReadLimit): Offset =
    if (!realTime) super.latestOffset(startOffset, limit)
    else {
      run.backUpSoon()
      val start = offsetOf(startOffset)
      // Every host whose latest answer lists its files, news or not: each batch follows them all.
      hosts = run.news(start).listed
      start
    }

  override def planInputPartitions(start: Offset): Array[InputPartition] = {
    val from = offsetOf(start)
    batchStart = from
    starts = hosts.map(h => h -> from.hosts.get(h)).toMap
    // Every host's at once, each then opened for its start by its own task: one by one, or read
    // and written here, a thousand hosts' journals took seconds of each batch's start.
    val versions = journals.open(client, starts.keys)
    val byNode = run.hostsByNode(SparkExecutors.slots(spark.sparkContext).keys)
    def locations(node: String) =
      if (options.nodeNameEnv.isEmpty) Nil else byNode.getOrElse(node, Nil)
    starts.toSeq
      .sortBy(_._1)
      .map { case (h, s) => HostPartition(h, s, versions(h), journals.key, locations(h)) }
      .toArray
  }

  override def mergeOffsets(offsets: Array[PartitionOffset]): Offset = {
    val reached = offsets.collect { case HostPosition(h, Some(o)) => h -> o }
    val end = AofOffset(batchStart.hosts ++ reached, plannedAtMs = Some(clock.millis()))
    snapshots.rebase(batchStart, end)
  }

  // A batch that did not end is run again from its start: its tasks' plans must still be there.
  override def stop(): Unit =
    try if (realTime && starts.nonEmpty) journals.save(client, starts.keys)
    finally
      try synchronized(opened.foreach(_.close()))
      finally super.stop()

  override def createReaderFactory(): PartitionReaderFactory =
    if (!realTime) super.createReaderFactory()
    else {
      val limits = PlanLimits(None, options.startingOffsets, options.read.identity)
      new RealTimeReaderFactory(limits, options.failOnDataLoss, counters, run.endpoint)
    }
}
