package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.{SparkContext, SparkEnv}

/**
 * The one place where the source reaches past Spark's public API: Spark has none for an
 * executor's id or its host as the scheduler names it, nor for placing a task on one executor.
 * The source needs all three so that every executor of a host runs an endpoint (one serves, the
 * others stand by) and so that a read task can tell whether it runs on its file's host.
 * `SparkExecutorsSuite` checks each of them on every Spark line the build tests.
 */
object SparkExecutors {

  /** The host of the executor this code runs in (the driver's in local mode), as tasks see it. */
  def currentHost: String = SparkEnv.get.blockManager.blockManagerId.host

  /** The driver's executor id (Spark's own constant is not public). */
  val DriverId: String = "driver"

  /** The executors Spark knows now, as (host, executor id), sorted; in local mode the driver. */
  def all(sc: SparkContext): Seq[(String, String)] =
    SparkEnv.get.blockManager.master.getMemoryStatus.keys.toSeq
      .filter(id => sc.isLocal || id.executorId != DriverId)
      .map(id => id.host -> id.executorId)
      .sorted

  /** A preferred location that places a task on one executor (Spark's `TaskLocation` form). */
  def location(host: String, executorId: String): String = s"executor_${host}_$executorId"
}
