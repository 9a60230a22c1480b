package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.ColumnarBatch

import com.hx.spark.sql.connector.aof.endpoint.{EndpointSpec, NodeEndpoints, NodeName}
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.shim.StopWarnings

/**
 * Readers of columnar batches only (see [[LineBatch]] for why).
 *
 * @param endpoint started (or joined as a stand-by) by every executor that reads for the run
 */
final class AofReaderFactory(
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    endpoint: EndpointSpec)
    extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val task = partition.asInstanceOf[AofInputPartition]
    StopWarnings.quiet // on an executor: its log, too, says nothing of a stop
    val node = NodeName.current(endpoint.nodeNameEnv)
    if (node == task.host) NodeEndpoints.ensureRunningSoon(endpoint, node)
    new AofPartitionReader(task, failOnDataLoss, counters, endpoint)
  }

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("aof reads columnar batches only")
}
