package com.hx.spark.sql.connector.aof.read

import java.nio.channels.FileChannel
import java.nio.file.Path

import org.apache.spark.unsafe.types.UTF8String

import com.hx.spark.sql.connector.aof.files.lines.{LineEnding, LineReader}
import com.hx.spark.sql.connector.aof.files.rows.{FileHeader, PathColumns}

/**
 * A file a [[FileRangeReader]] reads a range's lines from (the planned file, a copy of it, or the
 * open tail of the file it continues), with what every row of that file carries: its path, the
 * path's columns, and its header.
 *
 * @param lineLimit the longest line read whole
 * @param ending    how the file's bytes are lines
 * @param sameFile  whether the file still holds what it did when opened, asked after each read
 */
private[read] final class RangeSource(
    val path: Path,
    channel: FileChannel,
    from: Long,
    until: Long,
    lineLimit: Int,
    pathColumns: Option[PathColumns],
    header: Option[FileHeader],
    ending: LineEnding,
    sameFile: () => Boolean) {
  // A buffer no larger than the range needs: a follower's ranges are a few lines each, many a
  // second, and a buffer of the largest size for each is most of what it allocates.
  val lines = new LineReader(
    channel,
    from,
    until,
    lineLimit,
    math.max(RangeSource.BufferMin, math.min(RangeSource.BufferMax, until - from)).toInt,
    ending,
    sameFile)
  val pathValue: UTF8String = UTF8String.fromString(path.toString)
  val pathValues: Array[UTF8String] = pathColumns.fold(Array.empty[UTF8String]) {
    _.values(path.toString).map(_.map(UTF8String.fromString).orNull).toArray
  }
  private val found = header.map(_.of(channel, lineLimit, ending))

  /** Where the file's header ends: the lines before it are not rows. */
  val headerEnd: Long = found.fold(0L)(_.end)
  val headerValue: UTF8String = found.flatMap(_.lines).map(UTF8String.fromString).orNull

  def close(): Unit = channel.close()
}

private[read] object RangeSource {
  // A read's buffer: a range's length, in these bounds.
  val BufferMin: Long = 8 * 1024
  val BufferMax: Long = 256 * 1024
}
