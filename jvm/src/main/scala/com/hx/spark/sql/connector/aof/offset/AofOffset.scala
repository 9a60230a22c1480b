package com.hx.spark.sql.connector.aof.offset

import org.apache.spark.sql.connector.read.streaming.{Offset => StreamOffset}

/** The source's offset: every host's files. Spark keeps it, as JSON, in the checkpoint. */
final case class AofOffset(hosts: Map[String, HostOffsets]) extends StreamOffset {
  // Spark asks for it more than once per batch (and parses it back); with thousands of files
  // it is megabytes of JSON.
  private lazy val written = OffsetJson.write(this)
  override def json(): String = written

  def file(host: String, fileId: String): Option[FileOffset] =
    hosts.get(host).flatMap(_.files.get(fileId))
}

object AofOffset {
  val Empty: AofOffset = AofOffset(Map.empty)

  def fromJson(json: String): AofOffset = OffsetJson.read(json)

  /** Spark hands back offsets read from the checkpoint in its own wrapper; this reads them. */
  def of(offset: StreamOffset): AofOffset = offset match {
    case o: AofOffset => o
    case other => fromJson(other.json())
  }
}
