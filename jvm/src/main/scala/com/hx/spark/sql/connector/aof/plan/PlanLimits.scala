package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.config.StartingOffsets

/**
 * What bounds one plan.
 *
 * @param bytesMax      most bytes of one file in one micro-batch; None reads all complete lines
 * @param batchBytesMax most bytes of one micro-batch over every host and file, shared fairly
 *                      ([[FairShare]]); None leaves the batch unbounded
 * @param wholeRecords  multi-line records: a batch ends at a record start the node reported
 *                      (`FileMeta.cuts`), never between, so a limit is kept to within a record
 */
final case class PlanLimits(
    bytesMax: Option[Long],
    startingOffsets: StartingOffsets,
    md5CheckEnabled: Boolean,
    batchBytesMax: Option[Long] = None,
    wholeRecords: Boolean = false)
