package com.hx.spark.sql.connector.aof.realtime

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}

import com.hx.spark.sql.connector.aof.endpoint.{EndpointSpec, NodeEndpoints, NodeName}
import com.hx.spark.sql.connector.aof.plan.PlanLimits
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.shim.StopWarnings

/** Makes the [[RealTimeReader]]s of a real-time query. */
final class RealTimeReaderFactory(
    limits: PlanLimits,
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    endpoint: EndpointSpec)
    extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val task = partition.asInstanceOf[HostPartition]
    StopWarnings.quiet // on an executor: its log, too, says nothing of a stop
    val node = NodeName.current(endpoint.nodeNameEnv)
    // The endpoint answers the driver's look at each batch's start, and `pyspark-aof status`.
    if (node == task.host) NodeEndpoints.ensureRunningSoon(endpoint, node)
    new RealTimeReader(task, limits, failOnDataLoss, counters, endpoint)
  }
}
