package com.hx.spark.sql.connector.aof.follow

import com.hx.spark.sql.connector.aof.files.listing.DirectoryChanges

/**
 * When a [[HostFollower]] looks at its files, and what a look lists: [[FileWrites]] in a task,
 * [[FollowerLooks.Always]] where each call to read on must look (tests that write, then read).
 */
trait FollowerLooks {

  /** The directories changed since the last look; None: every look lists every directory. */
  def changes: Option[DirectoryChanges]

  /** Whether a look now may find something the last one did not. */
  def due: Boolean

  /** A look begins. */
  def looking(): Unit

  /**
   * A look ended, its plan made and kept: how long until a file it saw is quiet enough for a look
   * to say more of it, if any, and whether it listed every directory.
   */
  def looked(settlesInMs: Option[Long], whole: Boolean): Unit
}

object FollowerLooks {

  /** Looks at every call, at every directory. */
  object Always extends FollowerLooks {
    override def changes: Option[DirectoryChanges] = None
    override def due: Boolean = true
    override def looking(): Unit = ()
    override def looked(settlesInMs: Option[Long], whole: Boolean): Unit = ()
  }
}
