package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.SparkEnv

/** Host names as Spark's scheduler knows them, so that preferred locations can match. */
object ExecutorHost {
  def current: String = SparkEnv.get.blockManager.blockManagerId.host
}
