package org.apache.spark.aof

import org.apache.spark.{SparkContext, SparkEnv}

/**
 * The executors Spark knows now, as (host, executor id). A launch task can be placed on one given
 * executor (location `executor_<host>_<id>`), so that every executor of a host runs an endpoint,
 * one serving and the others standing by; but Spark has no public API for executor ids. This
 * object sits in Spark's package to read them from the block manager master, the registry every
 * executor joins.
 */
object ExecutorIds {
  def of(sc: SparkContext): Seq[(String, String)] =
    SparkEnv.get.blockManager.master.getMemoryStatus.keys.toSeq
      .filter(id => sc.isLocal || id.executorId != SparkContext.DRIVER_IDENTIFIER)
      .map(id => id.host -> id.executorId)
      .sorted
}
