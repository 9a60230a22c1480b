package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.{Partition, SparkContext, SparkEnv, TaskContext}
import org.apache.spark.rdd.RDD

import com.hx.spark.sql.connector.aof.zookeeper.{EndpointSpec, SnifferEndpoints}

/**
 * Starts the per-host endpoints with a small Spark job: one launch partition per host, preferring
 * that host. A launch task that lands on another host starts nothing there (the endpoint would
 * describe the wrong disk); the host is tried again on the next trigger.
 */
object EndpointLauncher {

  /** Hosts that run tasks: every executor's, and the driver's own in local mode. */
  def executorHosts(sc: SparkContext): Set[String] = {
    val driver = SparkEnv.get.blockManager.blockManagerId
    sc.statusTracker.getExecutorInfos
      .filter(e => sc.isLocal || e.host != driver.host || e.port != driver.port)
      .map(_.host)
      .toSet
  }

  /** Runs the launch job; returns the hosts where an endpoint was started or already ran. */
  def launch(sc: SparkContext, hosts: Set[String], spec: EndpointSpec): Set[String] = {
    if (hosts.isEmpty) return Set.empty
    sc.setJobDescription(s"aof: start endpoints on ${hosts.toSeq.sorted.mkString(", ")}")
    try new LaunchRDD(sc, hosts.toSeq.sorted, spec).collect().flatten.toSet
    finally sc.setJobDescription(null)
  }
}

private final case class LaunchPartition(index: Int, host: String) extends Partition

private final class LaunchRDD(sc: SparkContext, hosts: Seq[String], spec: EndpointSpec)
    extends RDD[Option[String]](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    hosts.zipWithIndex.map { case (h, i) => LaunchPartition(i, h): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    Seq(split.asInstanceOf[LaunchPartition].host)

  override def compute(split: Partition, context: TaskContext): Iterator[Option[String]] = {
    val here = ExecutorHost.current
    if (here != split.asInstanceOf[LaunchPartition].host) Iterator(None)
    else {
      SnifferEndpoints.ensureRunning(spec, here)
      Iterator(Some(here))
    }
  }
}
