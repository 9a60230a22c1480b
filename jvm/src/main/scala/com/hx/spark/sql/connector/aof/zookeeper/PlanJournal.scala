package com.hx.spark.sql.connector.aof.zookeeper

import java.io.Closeable

import com.hx.spark.sql.connector.aof.offset.HostOffsets

/**
 * The plans a host's real-time task made from one start, kept before any of their rows is
 * returned. Spark commits a real-time batch only at its end, so a batch stopped or failed before
 * is run again from the same start; its task then reads these plans again, range by range, as a
 * replayed micro-batch does, and only then plans anew. So every line it returned before comes
 * again with the same `(host, file_id, offset)`, however the files were rotated since: a file's
 * id depends on when it was first planned, and the plans say when that was. A plan that only
 * read on is kept too: planned again after its file was compressed or copied away, its lines
 * would come from the copy, under the copy's id (the follower model finds it in a few seeds).
 */
trait PlanJournal extends Closeable {

  /** The plans kept for this start, in the order they were made: each one's end. */
  def planned: Seq[HostOffsets]

  /** Keeps a plan's end; returns once it is stored. */
  def keep(end: HostOffsets): Unit
}
