package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.{FutureAction, Partition, SparkContext, SparkEnv, TaskContext}
import org.apache.spark.rdd.RDD

import com.hx.spark.sql.connector.aof.zookeeper.{EndpointSpec, SnifferEndpoints}

/**
 * Starts the per-host endpoints with a small Spark job: as many launch partitions per host as it
 * has executors, preferring that host, so that the others usually start stand-bys too (read
 * tasks start them as well). A launch task that lands on another host starts nothing there (the
 * endpoint would describe the wrong disk); the host is tried again on a later trigger.
 */
object EndpointLauncher {

  /** Executors per host that runs tasks: every executor's, and the driver's own in local mode. */
  def executorsByHost(sc: SparkContext): Map[String, Int] = {
    val driver = SparkEnv.get.blockManager.blockManagerId
    sc.statusTracker.getExecutorInfos
      .filter(e => sc.isLocal || e.host != driver.host || e.port != driver.port)
      .groupBy(_.host)
      .map { case (host, executors) => host -> executors.length }
  }

  /**
   * Submits the launch job and returns at once: a host whose executor hangs must not hold up the
   * trigger. The job yields the hosts where an endpoint was started or already ran.
   */
  def launch(
      sc: SparkContext,
      executorsByHost: Map[String, Int],
      spec: EndpointSpec): FutureAction[Seq[String]] = {
    val hosts = executorsByHost.keys.toSeq.sorted
    val partitions = hosts.flatMap(h => Seq.fill(executorsByHost(h))(h))
    sc.setJobDescription(s"aof: start endpoints on ${hosts.mkString(", ")}")
    try new LaunchRDD(sc, partitions, spec).collectAsync()
    finally sc.setJobDescription(null)
  }
}

private final case class LaunchPartition(index: Int, host: String) extends Partition

private final class LaunchRDD(sc: SparkContext, hosts: Seq[String], spec: EndpointSpec)
    extends RDD[String](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    hosts.zipWithIndex.map { case (h, i) => LaunchPartition(i, h): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    Seq(split.asInstanceOf[LaunchPartition].host)

  override def compute(split: Partition, context: TaskContext): Iterator[String] = {
    val here = ExecutorHost.current
    if (here != split.asInstanceOf[LaunchPartition].host) Iterator.empty
    else {
      SnifferEndpoints.ensureRunning(spec, here)
      Iterator(here)
    }
  }
}
