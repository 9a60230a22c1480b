package com.hx.spark.sql.connector.aof

import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.types.StructType

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.stream.AofMicroBatchStream

class AofScan(options: AofOptions) extends Scan {
  override def readSchema(): StructType = AofSchema.Schema

  override def description(): String = s"aof ${options.directory}/${options.fileNameRegex}"

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    new AofMicroBatchStream(options, checkpointLocation)
}
