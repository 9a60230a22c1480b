package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}

import com.hx.spark.sql.connector.aof.zookeeper.{EndpointSpec, SnifferEndpoints}

/** @param endpoint started (or joined as a stand-by) by every executor that reads for the run */
final class AofReaderFactory(
    lineLengthMax: Int,
    failOnDataLoss: Boolean,
    counters: ReadCounters,
    endpoint: EndpointSpec)
    extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val task = partition.asInstanceOf[AofInputPartition]
    val host = ExecutorHost.current
    if (host == task.host) SnifferEndpoints.ensureRunningSoon(endpoint, host)
    new AofPartitionReader(task, lineLengthMax, failOnDataLoss, counters)
  }
}
