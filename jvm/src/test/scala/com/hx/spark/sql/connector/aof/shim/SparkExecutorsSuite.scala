package com.hx.spark.sql.connector.aof.shim

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.stream.FilesOpenCost
import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/** What `SparkExecutors` takes from outside Spark's public API, checked on the Spark under test. */
class SparkExecutorsSuite extends AnyFunSuite with SparkTestKit {

  test("local mode: the driver is the one executor, on the host its tasks see") {
    val sc = spark.sparkContext
    val inTask = sc.parallelize(1 to 2, 2).map(_ => SparkExecutors.currentHost).collect().toSet
    assert(SparkExecutors.all(sc) === Seq(SparkExecutors.currentHost -> SparkExecutors.DriverId))
    assert(SparkExecutors.DriverId === sc.getConf.get("spark.executor.id"))
    assert(inTask === Set(SparkExecutors.currentHost))
    assert(SparkExecutors.currentHost === sc.getConf.get("spark.driver.host"))
  }

  test("task slots: the local driver's cores over spark.task.cpus") {
    assert(SparkExecutors.slots(spark.sparkContext) === Map(SparkExecutors.currentHost -> 2))
  }

  test("an executor's location is the form Spark's scheduler reads as that executor") {
    // TaskLocation is Spark's own parser of preferred locations; not public, hence reflection.
    val parser = Class.forName("org.apache.spark.scheduler.TaskLocation$")
    val module = parser.getField("MODULE$").get(null)
    val location = SparkExecutors.location("10.0.0.7", "12")
    val parsed = parser.getMethod("apply", classOf[String]).invoke(module, location)
    assert(parsed.getClass.getSimpleName === "ExecutorCacheTaskLocation")
    assert(parsed.toString === location)
    def field(name: String): AnyRef = parsed.getClass.getMethod(name).invoke(parsed)
    assert((field("host"), field("executorId")) === (("10.0.0.7", "12")))
  }

  test("the session's spark.sql.files.openCostInBytes, in any of Spark's byte units") {
    assert(FilesOpenCost.of(spark) === 4L * 1024 * 1024)
    spark.conf.set("spark.sql.files.openCostInBytes", "8m")
    try assert(FilesOpenCost.of(spark) === 8L * 1024 * 1024)
    finally spark.conf.unset("spark.sql.files.openCostInBytes")
  }
}
