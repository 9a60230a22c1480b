package com.hx.spark.sql.connector.aof.read

import org.apache.spark.sql.types.{DataType, Decimal}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/** The columns of the source's batches: each a view of a reader's arrays, of one type. */
private[read] object Column {

  /** A column that is never null and answers only for its own type. */
  abstract class Of(dataType: DataType) extends ColumnVector(dataType) {
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

  /** A column whose rows may be null: it says which. */
  abstract class Nullable(dataType: DataType, rows: () => Int) extends Of(dataType) {
    override def hasNull: Boolean = numNulls > 0
    override def numNulls: Int = (0 until rows()).count(isNullAt)
  }
}
