package com.hx.spark.sql.connector.aof.offset

/**
 * Progress of one host: its files by file id, and the next serial to hand out there.
 */
final case class HostOffsets(nextSerial: Long, files: Map[String, FileOffset])

object HostOffsets {
  val Empty: HostOffsets = HostOffsets(0L, Map.empty)
}
