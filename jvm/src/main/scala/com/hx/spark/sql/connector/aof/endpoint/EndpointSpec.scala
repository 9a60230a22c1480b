package com.hx.spark.sql.connector.aof.endpoint

import com.hx.spark.sql.connector.aof.files.cleanup.Cleanup
import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity
import com.hx.spark.sql.connector.aof.files.lines.LineEnding
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.records.{BatchCuts, RecordRule}
import com.hx.spark.sql.connector.aof.files.rows.{FileHeader, PathColumns}
import com.hx.spark.sql.connector.aof.zookeeper.ZkAccess

/**
 * Everything an endpoint needs, shipped inside the launch task and never read from ZooKeeper: so
 * nothing written into ZooKeeper can make an endpoint look at another directory.
 *
 * @param files  the files the endpoint reads: its paths and what `exclude` leaves out
 * @param runKey the run's secret (Base64) that seals requests and responses: the endpoint obeys
 *               only requests sealed by this run's driver, whoever else can write in ZooKeeper
 * @param nodeNameEnv the environment variable naming an executor's node (`node.name.env`)
 * @param records     how lines group into multi-line records, when they do
 * @param batchCuts   where batches may end early, when a byte limit bounds them
 * @param lineFilter  which lines (or records) the read tasks keep, when not all
 * @param pathColumns the columns the read tasks take from a file's path (`path.columns`)
 * @param header      the lines at a file's head that are its header (`header.lines`)
 * @param ending      how the files' bytes are lines (`encoding`, `line.separator`)
 * @param cleanup     what becomes of a file read to its end and committed (`cleanup`)
 * @param ignoreOlderMs how long a file first seen must have gone unmodified to be followed from
 *                    its end rather than read (`ignore.older`)
 * @param identity    how a file is told from what was known of it (`md5.check.enabled`), on
 *                    the node and in the reader as in the planner
 */
final case class EndpointSpec(
    runId: String,
    zk: ZkAccess,
    metaStore: String,
    files: SourceFiles,
    md5SampleLength: Int,
    runKey: String,
    nodeNameEnv: Option[String] = None,
    records: Option[RecordRule] = None,
    batchCuts: Option[BatchCuts] = None,
    identity: FileIdentity = FileIdentity(checked = true),
    ignoreOlderMs: Option[Long] = None,
    lineFilter: Option[LineFilter] = None,
    pathColumns: Option[PathColumns] = None,
    header: Option[FileHeader] = None,
    ending: LineEnding = LineEnding.Default,
    cleanup: Option[Cleanup] = None) {
  override def toString: String = s"EndpointSpec($runId, $files)"
}
