package com.hx.spark.sql.connector.aof.read

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.AofSchema

class LineBatchSuite extends AnyFunSuite {
  private val buffer = "xxhello\nworld\n".getBytes(UTF_8)
  private def utf8(s: String): UTF8String = UTF8String.fromString(s)

  private def batch(): LineBatch = {
    val b = new LineBatch(capacity = 2)
    b.reset(utf8("node-1"), utf8("/var/log/app.log"), utf8("1:2:0"))
    b.add(buffer, 2, 5, 42L)
    b.add(buffer, 8, 5, 48L)
    b
  }

  test("every column of the schema, read the way Spark's generated code reads it") {
    val b = batch()
    assert(b.isFull && b.columns.numRows === 2)
    val rows = (0 until 2).map(i => UnsafeProjection.create(AofSchema.Schema)(b.columns.getRow(i)))
    assert(rows.map(_.getUTF8String(0).toString) === Seq("hello", "world"))
    assert(rows.map(_.getUTF8String(1).toString).distinct === Seq("node-1"))
    assert(rows.map(_.getUTF8String(2).toString).distinct === Seq("/var/log/app.log"))
    assert(rows.map(_.getLong(3)) === Seq(42L, 48L))
    assert(rows.map(_.getUTF8String(4).toString).distinct === Seq("1:2:0"))
    assert(!b.columns.column(0).hasNull && !b.columns.column(0).isNullAt(1))
  }

  test("the batch is a view of the buffer; reset empties it for the next file") {
    val b = batch()
    System.arraycopy("HELLO".getBytes(UTF_8), 0, buffer, 2, 5)
    try assert(b.columns.column(0).getUTF8String(0).toString === "HELLO")
    finally System.arraycopy("hello".getBytes(UTF_8), 0, buffer, 2, 5)
    b.reset(utf8("node-2"), utf8("/var/log/app.log.1"), utf8("1:3:0"))
    assert(b.columns.numRows === 0 && !b.isFull)
    b.add(buffer, 8, 5, 6L)
    assert(b.columns.getRow(0).getUTF8String(2).toString === "/var/log/app.log.1")
  }

  test("renewed for another plan: empty, its rows stamped with that plan's time") {
    val b = batch()
    b.renew(plannedAtMs = 1700000000123L)
    assert(b.columns.numRows === 0)
    b.reset(utf8("node-1"), utf8("/var/log/app.log"), utf8("1:2:0"))
    b.add(buffer, 8, 5, 48L)
    assert(b.columns.getRow(0).getLong(5) === 1700000000123000L)
  }

  test("a column read as another type says so") {
    val e = intercept[UnsupportedOperationException](batch().columns.column(0).getLong(0))
    assert(e.getMessage.contains("StringType"))
  }
}
