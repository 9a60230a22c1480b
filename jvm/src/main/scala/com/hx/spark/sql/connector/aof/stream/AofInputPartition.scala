package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.connector.read.InputPartition

import com.hx.spark.sql.connector.aof.plan.FileRange

/**
 * One task's share of a micro-batch: ranges of files on one host (a node), to be read there.
 *
 * @param locations the hosts of that node's executors, as Spark names them; the node itself
 *                  unless nodes are named by `node.name.env`
 * @param plannedAtMs when the batch was planned: its lines' `timestamp`
 */
final case class AofInputPartition(
    ranges: Seq[FileRange],
    locations: Seq[String] = Nil,
    plannedAtMs: Long = 0L)
    extends InputPartition {
  require(ranges.nonEmpty && ranges.forall(_.host == ranges.head.host), "ranges of one host")

  def host: String = ranges.head.host

  override def preferredLocations(): Array[String] =
    (if (locations.isEmpty) Seq(host) else locations).toArray
}
