package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.identity.FileMeta

/** What a host's answer says. */
sealed trait Answered

object Answered {

  /** The host's files, in full. */
  final case class Listed(files: Seq[FileMeta]) extends Answered

  /** Why the host could not list its directory: its files are unknown this time, not gone. */
  final case class Unlisted(why: String) extends Answered

  /** The host cannot take the request as a change (a new endpoint, or a late answer). */
  case object NeedsFull extends Answered
}
