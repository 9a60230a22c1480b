package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}
import java.util.Comparator

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/** A real local Spark session per suite, and temp directories removed after it. */
trait SparkTestKit extends BeforeAndAfterAll { self: Suite =>
  lazy val spark: SparkSession = SparkSession
    .builder()
    .master("local[2]")
    .appName(getClass.getSimpleName)
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()

  private val tempRoot: Path = Files.createTempDirectory("aof-test-")

  def newDir(name: String): Path =
    Files.createDirectories(Files.createTempDirectory(tempRoot, name))

  override protected def afterAll(): Unit = {
    try spark.stop()
    finally {
      val walk = Files.walk(tempRoot)
      try walk.sorted(Comparator.reverseOrder[Path]()).forEach(p => Files.deleteIfExists(p))
      finally walk.close()
      super.afterAll()
    }
  }

  def eventually(what: String, timeoutMs: Long = 60000)(condition: => Boolean): Unit =
    Polling.eventually(what, timeoutMs)(condition)
}
