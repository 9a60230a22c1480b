package com.hx.spark.sql.connector.aof.offset

/**
 * Progress of one host: its files by file id, the next serial to hand out there, and the files
 * no longer tracked whose copy may still show up ([[RetiredFile]]), by file id.
 */
final case class HostOffsets(
    nextSerial: Long,
    files: Map[String, FileOffset],
    retired: Map[String, RetiredFile] = Map.empty)

object HostOffsets {
  val Empty: HostOffsets = HostOffsets(0L, Map.empty)
}
