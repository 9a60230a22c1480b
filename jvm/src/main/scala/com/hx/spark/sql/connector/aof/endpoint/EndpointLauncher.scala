package com.hx.spark.sql.connector.aof.endpoint

import org.apache.spark.{FutureAction, Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD

import com.hx.spark.sql.connector.aof.shim.SparkExecutors

/**
 * Starts the endpoints with a small Spark job: one launch partition per executor, placed on that
 * executor, so that every executor of a host runs one (the host's latch makes one serve and the
 * others stand by; read tasks start them too). A launch task that lands on another host starts
 * nothing there (the endpoint would describe the wrong disk); it is tried again later. Each
 * launch task also says which node its executor is on ([[NodeName]]).
 */
object EndpointLauncher {

  /** Executor ids by host; in local mode the driver, which runs the tasks. */
  def executorsByHost(sc: SparkContext): Map[String, Seq[String]] =
    SparkExecutors.all(sc).groupBy(_._1).map { case (host, ids) => host -> ids.map(_._2) }

  /**
   * Submits the launch job and returns at once: a host whose executor hangs must not hold up the
   * trigger. The job yields (host, node) of the executors where an endpoint was started or
   * already ran.
   */
  def launch(
      sc: SparkContext,
      executors: Seq[(String, String)],
      spec: EndpointSpec): FutureAction[Seq[(String, String)]] = {
    val hosts = executors.map(_._1).distinct.sorted
    sc.setJobDescription(s"aof: start endpoints on ${hosts.mkString(", ")}")
    try new LaunchRDD(sc, executors, spec).collectAsync()
    finally sc.setJobDescription(null)
  }

  /**
   * Stops the run's endpoint in the driver's own JVM (local mode runs it there) and keeps it from
   * starting again, before the driver closes what the endpoint still uses.
   */
  def stopInDriver(runId: String): Unit = NodeEndpoints.stop(runId)
}

private final case class LaunchPartition(index: Int, host: String, executorId: String)
    extends Partition

private final class LaunchRDD(
    sc: SparkContext,
    executors: Seq[(String, String)],
    spec: EndpointSpec)
    extends RDD[(String, String)](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    executors.zipWithIndex.map { case ((h, id), i) => LaunchPartition(i, h, id): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val p = split.asInstanceOf[LaunchPartition]
    if (sparkContext.isLocal) Seq(p.host) else Seq(SparkExecutors.location(p.host, p.executorId))
  }

  override def compute(split: Partition, context: TaskContext): Iterator[(String, String)] = {
    val here = SparkExecutors.currentHost
    if (here != split.asInstanceOf[LaunchPartition].host) Iterator.empty
    else {
      val node = NodeName.current(spec.nodeNameEnv)
      NodeEndpoints.ensureRunning(spec, node)
      Iterator(here -> node)
    }
  }
}
