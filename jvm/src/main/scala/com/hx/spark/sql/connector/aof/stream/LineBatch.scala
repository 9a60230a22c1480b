package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.types.{DataType, Decimal, LongType, StringType, TimestampType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarBatch, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Lines of one file, handed to Spark as a columnar batch of the source's schema. A batch is a
 * view, not a copy: `value` points into the read buffer, `offset` is an array, and `host`,
 * `path`, `file_id` and `timestamp` are the same for every line.
 *
 * Columnar because Spark then reads the lines in a loop of its generated code, one call per
 * batch, where a row reader costs several virtual calls per line in Spark's iterators; and that
 * generated code reads only the columns a query uses, copying `value` once or not at all (a query
 * that only measures lines reads them in place).
 *
 * Valid until the reader moves on, as Spark expects of a batch it got from a reader.
 */
final class LineBatch(val capacity: Int = LineBatch.Capacity, timestampMicros: Long = 0L) {
  private val arrays = new Array[Array[Byte]](capacity)
  private val starts = new Array[Int](capacity)
  private val lengths = new Array[Int](capacity)
  private val offsets = new Array[Long](capacity)
  private var host = UTF8String.EMPTY_UTF8
  private var path = UTF8String.EMPTY_UTF8
  private var fileId = UTF8String.EMPTY_UTF8

  val columns: ColumnarBatch = new ColumnarBatch(
    Array[ColumnVector](
      new LineBatch.Column(StringType) {
        override def getUTF8String(i: Int): UTF8String =
          UTF8String.fromBytes(arrays(i), starts(i), lengths(i))
      },
      new LineBatch.Column(StringType) {
        override def getUTF8String(i: Int): UTF8String = host
      },
      new LineBatch.Column(StringType) {
        override def getUTF8String(i: Int): UTF8String = path
      },
      new LineBatch.Column(LongType) {
        override def getLong(i: Int): Long = offsets(i)
      },
      new LineBatch.Column(StringType) {
        override def getUTF8String(i: Int): UTF8String = fileId
      },
      new LineBatch.Column(TimestampType) {
        override def getLong(i: Int): Long = timestampMicros
      }
    ))

  def isFull: Boolean = columns.numRows == capacity

  /** Where the `i`th line starts in its file. */
  def offsetAt(i: Int): Long = offsets(i)

  /** Empties the batch for lines of a file, under the given host, path and file id. */
  def reset(lineHost: UTF8String, linePath: UTF8String, lineFileId: UTF8String): Unit = {
    host = lineHost
    path = linePath
    fileId = lineFileId
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
}

object LineBatch {

  /** Lines per batch, as Spark's own columnar readers use by default. */
  val Capacity = 4096

  /** A column that is never null and answers only for its own type. */
  private abstract class Column(dataType: DataType) extends ColumnVector(dataType) {
    override def close(): Unit = ()
    override def hasNull: Boolean = false
    override def numNulls: Int = 0
    override def isNullAt(rowId: Int): Boolean = false
    override def getBoolean(rowId: Int): Boolean = unsupported
    override def getByte(rowId: Int): Byte = unsupported
    override def getShort(rowId: Int): Short = unsupported
    override def getInt(rowId: Int): Int = unsupported
    override def getLong(rowId: Int): Long = unsupported
    override def getFloat(rowId: Int): Float = unsupported
    override def getDouble(rowId: Int): Double = unsupported
    override def getArray(rowId: Int): ColumnarArray = unsupported
    override def getMap(ordinal: Int): ColumnarMap = unsupported
    override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = unsupported
    override def getUTF8String(rowId: Int): UTF8String = unsupported
    override def getBinary(rowId: Int): Array[Byte] = unsupported
    override def getChild(ordinal: Int): ColumnVector = unsupported

    private def unsupported: Nothing =
      throw new UnsupportedOperationException(s"aof: a $dataType column read as another type")
  }
}
