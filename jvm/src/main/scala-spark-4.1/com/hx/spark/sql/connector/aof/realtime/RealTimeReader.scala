package com.hx.spark.sql.connector.aof.realtime

import java.time.Clock

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.streaming.{PartitionOffset, SupportsRealTimeRead}
import org.apache.spark.sql.connector.read.streaming.SupportsRealTimeRead.RecordStatus

import com.hx.spark.sql.connector.aof.endpoint.{EndpointSpec, MisplacedTask, NodeName}
import com.hx.spark.sql.connector.aof.follow.{FileWrites, HostFollower}
import com.hx.spark.sql.connector.aof.metrics.ExecutorReads
import com.hx.spark.sql.connector.aof.plan.PlanLimits
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.sink.RowBursts
import com.hx.spark.sql.connector.aof.stream.ScanMetrics
import com.hx.spark.sql.connector.aof.zookeeper.{ZkClients, ZkPlanJournal}

/**
 * A real-time batch's task: follows its host's files ([[HostFollower]]) until Spark ends the
 * batch, looking when [[FileWrites]] says and sleeping on it between, and keeping each plan in
 * ZooKeeper before returning its rows ([[ZkPlanJournal]]). Rows, not columnar batches: Spark
 * takes a real-time reader's rows one at a time.
 */
final class RealTimeReader(
    partition: HostPartition,
    limits: PlanLimits,
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    endpoint: EndpointSpec,
    clock: Clock = Clock.systemUTC())
    extends SupportsRealTimeRead[InternalRow] {
  private val here = NodeName.current(endpoint.nodeNameEnv)
  if (here != partition.host) MisplacedTask.handOver(partition.host, here, endpoint)

  private val client = ZkClients.open(endpoint.zk, endpoint.metaStore)
  // A task killed as it starts (its query stopped) must not leave its client connected: it
  // would retry, with ZooKeeper's stack each time, once the server is gone.
  private val writes = new FileWrites(endpoint.files, clock)
  private val follower =
    try {
      val journal =
        new ZkPlanJournal(
          client,
          endpoint.metaStore,
          partition.host,
          partition.start,
          partition.journal,
          partition.journalKey)
      new HostFollower(
        partition.host,
        partition.start,
        endpoint,
        limits,
        failOnDataLoss,
        counters,
        journal,
        clock,
        writes,
        () => RowBursts.ended())
    } catch {
      case e: Throwable =>
        client.close()
        throw e
    }
  // The sinks of this thread flush the rows of each plan together.
  RowBursts.tell()

  override def nextWithTimeout(timeoutMs: java.lang.Long): RecordStatus = {
    val deadline = clock.millis() + timeoutMs
    var found = follower.next()
    var left = deadline - clock.millis()
    while (!found && left > 0) {
      writes.await(left)
      found = follower.next()
      left = deadline - clock.millis()
    }
    RecordStatus.newStatusWithoutArrivalTime(found)
  }

  override def next(): Boolean = follower.next()

  override def get(): InternalRow = follower.row

  override def getOffset: PartitionOffset = HostPosition(partition.host, follower.offset)

  override def currentMetricsValues(): Array[CustomTaskMetric] = ScanMetrics.ofTask(counters)

  override def close(): Unit =
    try follower.close()
    finally {
      RowBursts.stop()
      writes.close()
      ExecutorReads.add(endpoint.metaStore, counters.linesRead.value, counters.bytesRead.value)
    }
}
