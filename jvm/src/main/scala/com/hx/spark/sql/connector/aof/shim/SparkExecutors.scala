package com.hx.spark.sql.connector.aof.shim

import org.apache.spark.{SparkContext, SparkEnv}
import org.apache.spark.status.api.v1.ExecutorSummary

/**
 * The one place where the source reaches past Spark's public API: Spark has none for an
 * executor's id or its host as the scheduler names it, for placing a task on one executor, nor
 * for an executor's task slots. The source needs them so that every executor of a host runs an
 * endpoint (one serves, the others stand by), so that a read task can tell whether it runs on its
 * file's host, and so that no host gets more tasks than it can run at once.
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

  /**
   * Task slots by host: each executor's cores over the cores a task takes, as the scheduler
   * counts them (`maxTasks` of the executor summaries that Spark's status store keeps for its
   * REST API; the public status tracker leaves them out, so the store is reached by name). An
   * executor not in the store yet counts one slot.
   */
  def slots(sc: SparkContext): Map[String, Int] = {
    val store = classOf[SparkContext].getMethod("statusStore").invoke(sc)
    val summaries = store.getClass
      .getMethod("executorList", classOf[Boolean])
      .invoke(store, java.lang.Boolean.TRUE)
      .asInstanceOf[scala.collection.Seq[ExecutorSummary]]
    val maxTasks = summaries.map(e => e.id -> e.maxTasks).toMap
    all(sc).groupBy(_._1).map { case (host, executors) =>
      host -> executors.map(e => math.max(1, maxTasks.getOrElse(e._2, 1))).sum
    }
  }

  /** A preferred location that places a task on one executor (Spark's `TaskLocation` form). */
  def location(host: String, executorId: String): String = s"executor_${host}_$executorId"
}
