package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, KnownFile}

/**
 * A request on its way: its id, the files it names in full, its retired files, the exchange it
 * is a change from, and the files it lets the node remove.
 */
final case class SentRequest(
    id: String,
    known: Seq[KnownFile],
    retired: Map[String, KnownFile],
    base: Option[Exchange],
    remove: Seq[FileKey] = Nil,
    seq: Long = 0L)
