package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, KnownFile}

/**
 * A request in full and the answer to it in full: what the driver and a node each keep of their
 * last exchange, the base of the next.
 */
final case class Exchange(id: String, known: Seq[KnownFile], files: Seq[FileMeta])
