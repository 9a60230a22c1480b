package com.hx.spark.sql.connector.aof.sink

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/** A row of a real query, written as `to_json` writes it. */
class RowJsonSuite extends AnyFunSuite with SparkTestKit {
  test("times as ISO 8601 with milliseconds and zone; dates, binary, nesting as to_json's") {
    val row = spark
      .sql("""select 'a "line"' as value, 12L as offset,
        |  timestamp_micros(1796459712123456) as timestamp, date'2026-12-05' as day,
        |  cast(null as string) as missing, cast('ab' as binary) as bytes, 1.5D as ratio,
        |  named_struct('at', timestamp_micros(1796459712000000), 'n', 1) as nested,
        |  array(1, 2) as list, map('k', true) as flags""".stripMargin)
      .head()
    assert(
      RowJson.of(row) ===
        """{"value":"a \"line\"","offset":12,"timestamp":"2026-12-05T08:35:12.123Z",""" +
        """"day":"2026-12-05","missing":null,"bytes":"YWI=","ratio":1.5,""" +
        """"nested":{"at":"2026-12-05T08:35:12.000Z","n":1},"list":[1,2],"flags":{"k":true}}""")
  }
}
