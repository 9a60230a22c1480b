package com.hx.spark.sql.connector.aof

import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType, TimestampType}

/**
 * The rows the source emits: `(host, file_id, offset)` names a line uniquely and stably;
 * `timestamp` is when the source first planned the line's bytes, the same in a replay.
 */
object AofSchema {
  val Schema: StructType = StructType(
    Seq(
      StructField("value", StringType, nullable = false),
      StructField("host", StringType, nullable = false),
      StructField("path", StringType, nullable = false),
      StructField("offset", LongType, nullable = false),
      StructField("file_id", StringType, nullable = false),
      StructField("timestamp", TimestampType, nullable = false)
    ))
}
