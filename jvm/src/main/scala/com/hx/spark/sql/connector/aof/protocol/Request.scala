package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, KnownFile}

/**
 * The driver's request to a node: the files it tracks there. In full, or with `base` as the
 * change from its request `base`, which the node answered last: `known` the files new or
 * changed since, `forgotten` those no longer tracked. `retired`, always in full, the files it
 * no longer tracks whose copy may still show up, by file id. `remove`, always in full: the files
 * (tracked, by key) read to their end in committed batches, which the node may remove (`cleanup`).
 * `seq` orders the run's requests: a node refuses one older than the last it answered, written
 * back by someone who can write ZooKeeper (a sealed request stays sealed).
 */
final case class Request(
    id: String,
    known: Seq[KnownFile],
    base: Option[String] = None,
    forgotten: Seq[FileKey] = Nil,
    retired: Map[String, KnownFile] = Map.empty,
    remove: Seq[FileKey] = Nil,
    seq: Long = 0L)
