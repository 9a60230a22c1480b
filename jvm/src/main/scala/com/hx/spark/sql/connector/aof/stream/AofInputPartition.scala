package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.connector.read.InputPartition

import com.hx.spark.sql.connector.aof.plan.FileRange

/** One task's share of a micro-batch: ranges of files on one host, to be read there. */
final case class AofInputPartition(ranges: Seq[FileRange], directory: String)
    extends InputPartition {
  require(ranges.nonEmpty && ranges.forall(_.host == ranges.head.host), "ranges of one host")

  def host: String = ranges.head.host

  override def preferredLocations(): Array[String] = Array(host)
}
