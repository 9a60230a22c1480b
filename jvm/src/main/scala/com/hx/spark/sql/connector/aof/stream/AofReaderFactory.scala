package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}

final class AofReaderFactory(lineLengthMax: Int, failOnDataLoss: Boolean, counters: ReadCounters)
    extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    new AofPartitionReader(
      partition.asInstanceOf[AofInputPartition],
      lineLengthMax,
      failOnDataLoss,
      counters)
}
