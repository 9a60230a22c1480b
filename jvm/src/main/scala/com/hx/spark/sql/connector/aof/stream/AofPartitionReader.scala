package com.hx.spark.sql.connector.aof.stream

import java.nio.channels.FileChannel
import java.nio.file.{Files, NoSuchFileException, Path, Paths, StandardOpenOption}
import java.util.Arrays

import scala.collection.JavaConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.unsafe.types.UTF8String
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.{FileKey, LineReader}

/**
 * Reads one planned range on the host that holds the file. The file is found by its key, so a
 * file renamed since planning is still read, from its new name. Bytes that are gone by then are
 * counted as lost (or fail the task with `fail.on.data.loss`); over-long lines are counted.
 */
final class AofPartitionReader(
    partition: AofInputPartition,
    lineLengthMax: Int,
    failOnDataLoss: Boolean,
    counters: ReadCounters)
    extends PartitionReader[InternalRow] {
  private val log = LoggerFactory.getLogger(getClass)
  private val range = partition.range

  private val here = ExecutorHost.current
  if (here != range.host) {
    throw new IllegalStateException(
      s"aof: a task for ${range.path} on host ${range.host} ran on host $here, which cannot " +
        s"read that host's files. Raise spark.locality.wait (for example to 30s) so that tasks " +
        "wait for their own host, and make sure that host has a live executor.")
  }

  private val path: Option[Path] = locate()
  private val channel: Option[FileChannel] =
    path.map(p => FileChannel.open(p, StandardOpenOption.READ))
  private val lines: Option[LineReader] =
    channel.map(new LineReader(_, range.from, range.until, lineLengthMax))

  private val hostValue = UTF8String.fromString(range.host)
  private val pathValue = UTF8String.fromString(path.fold(range.path)(_.toString))
  private val fileIdValue = UTF8String.fromString(range.fileId)

  private var truncated = 0L

  override def next(): Boolean = lines.exists { reader =>
    val more = reader.next()
    if (more && reader.truncated) truncated += 1
    if (!more && reader.incomplete) {
      lost(reader.lineOffset, s"$pathValue ended inside a line that was complete when planned")
    }
    more
  }

  override def get(): InternalRow = {
    val reader = lines.get
    val value = UTF8String.fromBytes(Arrays.copyOf(reader.lineBytes, reader.lineLength))
    new GenericInternalRow(Array[Any](value, hostValue, pathValue, reader.lineOffset, fileIdValue))
  }

  override def close(): Unit = {
    if (truncated > 0) {
      counters.linesTruncated.add(truncated)
      log.warn(
        s"aof: $truncated lines of $pathValue in bytes ${range.from} to ${range.until} were " +
          s"longer than $lineLengthMax bytes (line.length.max) and were cut to that length")
    }
    lines.foreach(_.close())
    channel.foreach(_.close())
  }

  private def locate(): Option[Path] = {
    val planned = Paths.get(range.path)
    def keyOf(p: Path): Option[FileKey] =
      try Some(FileKey.of(p))
      catch { case _: NoSuchFileException => None }
    if (keyOf(planned).contains(range.key)) return Some(planned)
    val directory = Paths.get(partition.directory)
    val renamed =
      if (!Files.isDirectory(directory)) None
      else {
        val listing = Files.list(directory)
        try listing.iterator().asScala.find(p => keyOf(p).contains(range.key))
        finally listing.close()
      }
    if (renamed.isEmpty) lost(range.from, s"${range.path} (file ${range.fileId}) is gone")
    renamed
  }

  private def lost(from: Long, why: String): Unit = {
    val message = s"aof: $why; bytes $from to ${range.until} of it on ${range.host} are lost"
    if (failOnDataLoss) {
      throw new IllegalStateException(
        s"$message. Set fail.on.data.loss=false to log and count such losses instead.")
    }
    log.warn(message)
    counters.bytesLost.add(range.until - from)
  }
}
