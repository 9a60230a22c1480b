package com.hx.spark.sql.connector.aof

import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

/** The rows the source emits: `(host, file_id, offset)` names a line uniquely and stably. */
object AofSchema {
  val Schema: StructType = StructType(
    Seq(
      StructField("value", StringType, nullable = false),
      StructField("host", StringType, nullable = false),
      StructField("path", StringType, nullable = false),
      StructField("offset", LongType, nullable = false),
      StructField("file_id", StringType, nullable = false)
    ))
}
