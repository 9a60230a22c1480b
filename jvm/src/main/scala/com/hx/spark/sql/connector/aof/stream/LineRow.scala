package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.catalyst.expressions.{BaseGenericInternalRow, GenericInternalRow}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The row of the current line, a view rather than a copy: `value` points into the read buffer
 * and the other columns are the range's constants.
 *
 * Spark puts a projection to UnsafeRow right above every streaming V2 scan, and that projection
 * reads only the columns the query uses. So a query on `value` alone copies each line once and
 * never touches `host`, `path` or `file_id` (streaming scans get no column pruning otherwise).
 * Writing an UnsafeRow here would copy every column and then be copied again.
 *
 * Valid until the reader moves on, like any reused row; `copy()` detaches it.
 */
final class LineRow(host: UTF8String, fileId: UTF8String) extends BaseGenericInternalRow {
  private var bytes: Array[Byte] = Array.emptyByteArray
  private var start = 0
  private var length = 0
  private var path: UTF8String = UTF8String.EMPTY_UTF8
  private var offset = 0L

  /** Points the row at the next line. */
  def set(
      lineBytes: Array[Byte],
      lineStart: Int,
      lineLength: Int,
      linePath: UTF8String,
      lineOffset: Long): Unit = {
    bytes = lineBytes
    start = lineStart
    length = lineLength
    path = linePath
    offset = lineOffset
  }

  override def numFields: Int = LineRow.Fields

  override protected def genericGet(ordinal: Int): Any = ordinal match {
    case 0 => UTF8String.fromBytes(bytes, start, length)
    case 1 => host
    case 2 => path
    case 3 => offset
    case 4 => fileId
    case _ => throw new IndexOutOfBoundsException(s"aof rows have ${LineRow.Fields} columns")
  }

  override def getLong(ordinal: Int): Long =
    if (ordinal == 3) offset else super.getLong(ordinal)

  override def isNullAt(ordinal: Int): Boolean = false

  override def copy(): GenericInternalRow = new GenericInternalRow(
    Array[Any](UTF8String.fromBytes(bytes, start, length).clone(), host, path, offset, fileId))

  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("read-only row")

  override def update(i: Int, value: Any): Unit =
    throw new UnsupportedOperationException("read-only row")
}

object LineRow {
  private val Fields = 5
}
