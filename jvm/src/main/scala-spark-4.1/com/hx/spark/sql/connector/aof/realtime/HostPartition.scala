package com.hx.spark.sql.connector.aof.realtime

import org.apache.spark.sql.connector.read.InputPartition
import org.apache.spark.sql.connector.read.streaming.PartitionOffset

import com.hx.spark.sql.connector.aof.offset.HostOffsets

/**
 * One host's task of a real-time batch: it follows the host's files from `start` for as long as
 * the batch lasts.
 *
 * @param start     the host's offsets where the batch starts; None for a host new to the query
 * @param journal   the version the driver gave the plan journal for this batch, under which the
 *                  task opens and writes it
 *                  ([[com.hx.spark.sql.connector.aof.zookeeper.ZkPlanJournal]])
 * @param journalKey the query's key sealing the journal
 *                  ([[com.hx.spark.sql.connector.aof.zookeeper.JournalCopies.key]])
 * @param locations the hosts of that node's executors, as Spark names them (see
 *                  [[com.hx.spark.sql.connector.aof.stream.AofInputPartition]])
 */
final case class HostPartition(
    host: String,
    start: Option[HostOffsets],
    journal: Int,
    journalKey: String,
    locations: Seq[String])
    extends InputPartition {
  override def preferredLocations(): Array[String] =
    (if (locations.isEmpty) Seq(host) else locations).toArray

  // Never the key, wherever Spark prints a partition.
  override def toString: String = s"HostPartition($host, $start, $journal, *****, $locations)"
}

/** Where a host's task stopped: just after the last row it returned. */
final case class HostPosition(host: String, offsets: Option[HostOffsets]) extends PartitionOffset
