package com.hx.spark.sql.connector.aof.endpoint

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.files.cleanup.Cleanup
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.records.BatchCuts
import com.hx.spark.sql.connector.aof.zookeeper.ZkAccess

/**
 * Everything an endpoint needs, shipped inside the launch task and never read from ZooKeeper: so
 * nothing written into ZooKeeper can make an endpoint look at another directory.
 *
 * @param files  the files the endpoint reads: its paths and what `exclude` leaves out
 * @param runKey the run's secret (Base64) that seals requests and answers: the endpoint obeys
 *               only requests sealed by this run's driver, whoever else can write in ZooKeeper
 * @param nodeNameEnv the environment variable naming an executor's node (`node.name.env`)
 * @param read        how the files become rows, on the node and in the read tasks alike
 * @param batchCuts   where batches may end early, when a byte limit bounds them
 * @param ignoreOlderMs how long a file first seen must have gone unmodified to be followed from
 *                    its end rather than read (`ignore.older`)
 * @param cleanup     what becomes of a file read to its end and committed (`cleanup`)
 */
final case class EndpointSpec(
    runId: String,
    zk: ZkAccess,
    metaStore: String,
    files: SourceFiles,
    md5SampleLength: Int,
    runKey: String,
    nodeNameEnv: Option[String] = None,
    read: ReadSettings = ReadSettings(),
    batchCuts: Option[BatchCuts] = None,
    ignoreOlderMs: Option[Long] = None,
    cleanup: Option[Cleanup] = None) {
  override def toString: String = s"EndpointSpec($runId, $files)"
}
