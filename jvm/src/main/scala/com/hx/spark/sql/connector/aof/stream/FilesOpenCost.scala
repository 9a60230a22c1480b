package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.SparkConf
import org.apache.spark.sql.SparkSession

/** Spark's own cost of opening a file, as its file sources pack small files with it. */
object FilesOpenCost {
  private val Key = "spark.sql.files.openCostInBytes"

  /** The session's `spark.sql.files.openCostInBytes` ("4194304", "4m", ...) in bytes. */
  def of(spark: SparkSession): Long =
    // SparkConf parses Spark's byte strings; the session's SQL conf is only read as a string.
    new SparkConf(false).set(Key, spark.conf.get(Key, "4194304")).getSizeAsBytes(Key)
}
