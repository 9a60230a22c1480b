package com.hx.spark.sql.connector.aof.stream

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.FileKey
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/** What a user sees when defining a query, before any data moves. */
class DefinitionSuite extends AnyFunSuite with SparkTestKit {

  test("a bad option fails at load(), naming the option") {
    val e = intercept[IllegalArgumentException] {
      spark.readStream.format("aof").option("starting.offsets", "middle").load("/var/log/x.*")
    }
    assert(e.getMessage.contains("'starting.offsets'"))
  }

  test("a bad session conf fails at load(), naming its key") {
    spark.conf.set("spark.aof.bytes.max", "-1")
    try {
      val e =
        intercept[IllegalArgumentException](spark.readStream.format("aof").load("/var/log/x.*"))
      assert(e.getMessage.contains("spark.aof.bytes.max"))
    } finally spark.conf.unset("spark.aof.bytes.max")
  }

  test("the schema is value, host, path, offset, file_id") {
    val df = spark.readStream.format("aof").load("/var/log/x.*")
    assert(df.schema.fieldNames.toSeq === Seq("value", "host", "path", "offset", "file_id"))
    assert(df.isStreaming)
  }

  test("a task on another host refuses to read, and says how to fix it") {
    val counters = ReadCounters.register(spark.sparkContext)
    val range = FileRange("some-other-host", "/etc/hostname", FileKey(1, 1), "1:1:0", 0, 10)
    val e = intercept[IllegalStateException](
      new AofPartitionReader(AofInputPartition(range, "/etc"), 100, false, counters))
    assert(e.getMessage.contains("spark.locality.wait"))
    assert(e.getMessage.contains("some-other-host"))
  }
}
