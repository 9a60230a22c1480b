package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{Logged, SparkTestKit}

/** A `path` whose regex matches none of the files in its directory, as a typo makes one. */
class UnmatchedPathSuite extends AnyFunSuite with SparkTestKit {
  test("files none of which 'path' matches are said once, with the closest, at Spark's defaults") {
    val dir = newDir("logs")
    val log = Files.write(dir.resolve("App.log"), "a line\n".getBytes(UTF_8))
    Files.write(dir.resolve("readme.txt"), "notes\n".getBytes(UTF_8))
    val warned = Logged.during("com.hx.spark.sql.connector.aof.driver.ZooKeeperRun") { said =>
      val query = spark.readStream
        .format("aof")
        .load(s"$dir/app\\.log")
        .writeStream
        .format("memory")
        .queryName("unmatched")
        .option("checkpointLocation", newDir("checkpoint").toString)
        .start()
      try {
        query.processAllAvailable()
        Files.write(log, "another\n".getBytes(UTF_8), StandardOpenOption.APPEND)
        query.processAllAvailable() // a look again, which finds none again: said already
        assert(spark.table("unmatched").count() === 0L)
      } finally query.stop()
      said().filter(_.contains("matches none of them"))
    }
    assert(warned.size === 1, warned)
    assert(warned.head.contains(s"the closest: $dir/App.log, $dir/readme.txt."), warned)
  }
}
