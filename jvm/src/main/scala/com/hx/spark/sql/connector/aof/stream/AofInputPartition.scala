package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.connector.read.InputPartition

import com.hx.spark.sql.connector.aof.plan.FileRange

/** One task's share of a micro-batch: a range of one file, to be read on the host holding it. */
final case class AofInputPartition(range: FileRange, directory: String) extends InputPartition {
  override def preferredLocations(): Array[String] = Array(range.host)
}
