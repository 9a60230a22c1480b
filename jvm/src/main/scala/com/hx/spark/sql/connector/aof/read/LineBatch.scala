package com.hx.spark.sql.connector.aof.read

import org.apache.spark.sql.types.{LongType, StringType, TimestampType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.apache.spark.unsafe.types.UTF8String

import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.container.LineChunks

/**
 * Lines of one file, handed to Spark as a columnar batch of the source's schema. A batch is a
 * view, not a copy: `value` points into the read buffer, `offset` is an array, and `host`,
 * `path`, `file_id`, `timestamp` and the path's columns are the same for every line. A container
 * runtime's lines (`streamNames`, its format's [[LineFormat.streams]]) add `stream` and `time`,
 * both null for a line that is not of the format; `header.lines` adds the file's
 * `header`, the same for every line.
 *
 * Columnar because Spark then reads the lines in a loop of its generated code, one call per
 * batch, where a row reader costs several virtual calls per line in Spark's iterators; and that
 * generated code reads only the columns a query uses, copying `value` once or not at all (a query
 * that only measures lines reads them in place).
 *
 * Valid until the reader moves on, as Spark expects of a batch it got from a reader.
 */
final class LineBatch(
    val capacity: Int = LineBatch.Capacity,
    timestampMicros: Long = 0L,
    streamNames: Seq[String] = Nil,
    pathColumns: Int = 0,
    header: Boolean = false) {
  private val arrays = new Array[Array[Byte]](capacity)
  private val starts = new Array[Int](capacity)
  private val lengths = new Array[Int](capacity)
  private val offsets = new Array[Long](capacity)
  private val byRuntime = streamNames.nonEmpty
  private val streams = if (byRuntime) new Array[Int](capacity) else null
  private val times = if (byRuntime) new Array[Long](capacity) else null
  // The values of `stream`, by a line's stream id.
  private val streamValues = (null +: streamNames).map(UTF8String.fromString).toArray
  private var host = UTF8String.EMPTY_UTF8
  private var path = UTF8String.EMPTY_UTF8
  private var fileId = UTF8String.EMPTY_UTF8
  private var pathValues = Array.fill[UTF8String](pathColumns)(null)
  private var headerValue: UTF8String = null
  private var plannedMicros = timestampMicros

  private def runtimeColumns: Seq[ColumnVector] = if (!byRuntime) Nil
  else {
    Seq(
      new Column.Nullable(StringType, () => columns.numRows) {
        override def isNullAt(i: Int): Boolean = streams(i) == LineChunks.NoStream
        override def getUTF8String(i: Int): UTF8String = streamValues(streams(i))
      },
      new Column.Nullable(TimestampType, () => columns.numRows) {
        override def isNullAt(i: Int): Boolean = streams(i) == LineChunks.NoStream
        override def getLong(i: Int): Long = times(i)
      }
    )
  }

  private def headerColumn: Seq[ColumnVector] = if (!header) Nil
  else {
    Seq(new Column.Nullable(StringType, () => columns.numRows) {
      override def isNullAt(i: Int): Boolean = headerValue == null
      override def getUTF8String(i: Int): UTF8String = headerValue
    })
  }

  private def fromPath: Seq[ColumnVector] = (0 until pathColumns).map { c =>
    new Column.Nullable(StringType, () => columns.numRows) {
      override def isNullAt(i: Int): Boolean = pathValues(c) == null
      override def getUTF8String(i: Int): UTF8String = pathValues(c)
    }
  }

  val columns: ColumnarBatch = new ColumnarBatch(
    (Seq[ColumnVector](
      new Column.Of(StringType) {
        override def getUTF8String(i: Int): UTF8String =
          UTF8String.fromBytes(arrays(i), starts(i), lengths(i))
      },
      new Column.Of(StringType) {
        override def getUTF8String(i: Int): UTF8String = host
      },
      new Column.Of(StringType) {
        override def getUTF8String(i: Int): UTF8String = path
      },
      new Column.Of(LongType) {
        override def getLong(i: Int): Long = offsets(i)
      },
      new Column.Of(StringType) {
        override def getUTF8String(i: Int): UTF8String = fileId
      },
      new Column.Of(TimestampType) {
        override def getLong(i: Int): Long = plannedMicros
      }
    ) ++ runtimeColumns ++ headerColumn ++ fromPath).toArray)

  def isFull: Boolean = columns.numRows == capacity

  /**
   * Empties the batch for the lines of another plan, made at `plannedAtMs`: a task following files
   * reads a few lines a plan, and a batch made for each would be most of what it allocates.
   */
  def renew(plannedAtMs: Long): Unit = {
    plannedMicros = plannedAtMs * 1000L
    columns.setNumRows(0)
  }

  /** Where the `i`th line starts in its file. */
  def offsetAt(i: Int): Long = offsets(i)

  /**
   * Empties the batch for lines of a file, under the given host, path and file id, the values
   * of the path's columns (null where the path has none), and the file's header (or null).
   */
  def reset(
      lineHost: UTF8String,
      linePath: UTF8String,
      lineFileId: UTF8String,
      values: Array[UTF8String] = LineBatch.NoValues,
      fileHeader: UTF8String = null): Unit = {
    host = lineHost
    path = linePath
    fileId = lineFileId
    if (pathColumns > 0) pathValues = values
    headerValue = fileHeader
    columns.setNumRows(0)
  }

  /** Adds the line `bytes[start, start + length)`, which must stay put while the batch is read. */
  def add(bytes: Array[Byte], start: Int, length: Int, offset: Long): Unit = {
    val i = columns.numRows
    arrays(i) = bytes
    starts(i) = start
    lengths(i) = length
    offsets(i) = offset
    columns.setNumRows(i + 1)
  }

  /** Adds a line of a runtime's stream, written at `timeMicros`, as [[add]] does. */
  def add(
      bytes: Array[Byte],
      start: Int,
      length: Int,
      offset: Long,
      stream: Int,
      timeMicros: Long): Unit = {
    streams(columns.numRows) = stream
    times(columns.numRows) = timeMicros
    add(bytes, start, length, offset)
  }
}

object LineBatch {

  /** Lines per batch, as Spark's own columnar readers use by default. */
  val Capacity = 4096

  /** An empty batch of the rows an endpoint's read tasks make, planned at `plannedAtMs`. */
  def of(endpoint: EndpointSpec, plannedAtMs: Long): LineBatch = new LineBatch(
    timestampMicros = plannedAtMs * 1000L,
    streamNames = endpoint.read.grouping.fold(Seq.empty[String])(_.format.streams),
    pathColumns = endpoint.read.pathColumns.fold(0)(_.names.size),
    header = endpoint.read.header.nonEmpty
  )

  private val NoValues = Array.empty[UTF8String]
}
