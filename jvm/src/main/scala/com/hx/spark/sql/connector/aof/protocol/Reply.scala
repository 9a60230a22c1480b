package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.identity.FileMeta

/** What a host's response says. */
sealed trait Reply

object Reply {

  /** The host's files, in full. */
  final case class Listed(files: Seq[FileMeta]) extends Reply

  /** Why the host could not list its directory: its files are unknown this time, not gone. */
  final case class Unlisted(why: String) extends Reply

  /** The host cannot take the request as a change (a new endpoint, or a late answer). */
  case object NeedsFull extends Reply
}
