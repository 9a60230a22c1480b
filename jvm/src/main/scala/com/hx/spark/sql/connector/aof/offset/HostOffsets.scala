package com.hx.spark.sql.connector.aof.offset

import com.hx.spark.sql.connector.aof.files.{FileKey, KnownFile}

/**
 * Progress of one host: its files by file id, the next serial to hand out there, and the files
 * no longer tracked whose copy may still show up ([[RetiredFile]]), by file id.
 */
final case class HostOffsets(
    nextSerial: Long,
    files: Map[String, FileOffset],
    retired: Map[String, RetiredFile] = Map.empty) {

  // Made once an offset: the planner and the backlog's figures look every file of a host up by
  // key at each trigger, thousands of them. A Java map: made in a tenth of the time.
  @transient private lazy val byKey = {
    val m = new java.util.HashMap[FileKey, FileOffset](files.size * 2)
    files.valuesIterator.foreach(f => m.put(f.key, f))
    m
  }

  /**
   * What a node is told of its files: in the order of `files`, the same for the same file ids
   * (a hash map's), so that the next request, with a few files moved on, is compared with this
   * one pair by pair, not sorted again.
   */
  @transient lazy val known: Seq[KnownFile] = files.valuesIterator.map(_.known).toVector

  /** The file it tracks under `key`, if any. */
  def ofKey(key: FileKey): Option[FileOffset] = Option(byKey.get(key))
}

object HostOffsets {
  val Empty: HostOffsets = HostOffsets(0L, Map.empty)
}
