package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.AofSchema

class LineRowSuite extends AnyFunSuite {
  private val buffer = "xxhello\nworld\n".getBytes(UTF_8)
  private val path = UTF8String.fromString("/var/log/app.log")

  private def row(): LineRow = {
    val r = new LineRow(UTF8String.fromString("node-1"), UTF8String.fromString("1:2:0"))
    r.set(buffer, 2, 5, path, 42L)
    r
  }

  test("every column of the schema, read the way Spark's projection reads it") {
    val unsafe = UnsafeProjection.create(AofSchema.Schema)(row())
    assert(unsafe.getUTF8String(0).toString === "hello")
    assert(unsafe.getUTF8String(1).toString === "node-1")
    assert(unsafe.getUTF8String(2).toString === "/var/log/app.log")
    assert(unsafe.getLong(3) === 42L)
    assert(unsafe.getUTF8String(4).toString === "1:2:0")
    assert(!row().anyNull)
  }

  test("the row is a view of the buffer; copy() keeps the line when the buffer is reused") {
    val r = row()
    val copied = r.copy()
    System.arraycopy("HELLO".getBytes(UTF_8), 0, buffer, 2, 5)
    try {
      assert(r.getUTF8String(0).toString === "HELLO")
      assert(copied.getUTF8String(0).toString === "hello")
      assert(copied.getLong(3) === 42L)
    } finally System.arraycopy("hello".getBytes(UTF_8), 0, buffer, 2, 5)
  }

  test("the row is read-only") {
    intercept[UnsupportedOperationException](row().update(0, null))
    intercept[UnsupportedOperationException](row().setNullAt(1))
  }
}
