package com.hx.spark.sql.connector.aof.read

import java.io.Closeable

import org.apache.spark.sql.vectorized.ColumnarBatch

/** A planned range's rows, a batch at a time, in `columns`: of lines, or of a journal's entries. */
trait RangeRows extends Closeable {

  /** Fills `columns` with the next rows, at least one; false when the range has no more. */
  def next(): Boolean

  def columns: ColumnarBatch
}

object RangeRows {

  /** The rows `reader` fills `batch` with, one call of `fill` a batch. */
  def apply[R <: Closeable](batch: ColumnarBatch)(reader: R)(fill: R => Boolean): RangeRows =
    new RangeRows {
      override def next(): Boolean = fill(reader)
      override def columns: ColumnarBatch = batch
      override def close(): Unit = reader.close()
    }
}
