package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity

/**
 * What bounds one plan.
 *
 * @param bytesMax      most bytes of one file in one micro-batch; None reads all complete lines
 * @param batchBytesMax most bytes of one micro-batch over every host and file, shared fairly
 *                      ([[FairShare]]); None leaves the batch unbounded
 * @param identity      how a file is told from what was known of it (`md5.check.enabled`)
 *
 * A limit ends a batch at a line (or record) start the node reported (`FileMeta.cuts`), never
 * inside a line.
 */
final case class PlanLimits(
    bytesMax: Option[Long],
    startingOffsets: StartingOffsets,
    identity: FileIdentity,
    batchBytesMax: Option[Long] = None)
