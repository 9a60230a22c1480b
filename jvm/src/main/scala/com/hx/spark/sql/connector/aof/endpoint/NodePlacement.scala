package com.hx.spark.sql.connector.aof.endpoint

import org.apache.spark.{FutureAction, Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD

import com.hx.spark.sql.connector.aof.shim.SparkExecutors

/**
 * Placement tasks: one for each node to read that has no executor, preferring that node. Spark's
 * dynamic allocation hands the hosts its pending tasks prefer to the cluster manager when it
 * asks for executors, and YARN places containers by them. A task that runs on its node starts
 * the node's endpoint there, and leaves a small cached block, so that dynamic allocation keeps
 * that executor while the query runs (`spark.dynamicAllocation.cachedExecutorIdleTimeout`, by
 * default for ever). One that runs elsewhere is handed back ([[MisplacedTask]]): the driver
 * kills it, and Spark queues it again for its node.
 */
object NodePlacement {

  /** A placement job on its way: cancelled when its nodes change, unpersisted at the end. */
  final class Placing private[NodePlacement] (
      val nodes: Set[String],
      job: FutureAction[Seq[(String, String)]],
      rdd: RDD[(String, String)]) {
    def isCompleted: Boolean = job.isCompleted
    def cancel(): Unit = job.cancel()

    /** Cancels it, and lets go of the executors it kept. */
    def release(): Unit = {
      cancel()
      rdd.unpersist(blocking = false)
    }
  }

  /** Submits the placement job for `nodes` and returns at once. */
  def place(sc: SparkContext, nodes: Set[String], spec: EndpointSpec): Placing = {
    val rdd = new PlacementRDD(sc, nodes.toSeq.sorted, spec).cache()
    sc.setJobDescription(s"aof: an executor on ${nodes.toSeq.sorted.mkString(", ")}")
    try new Placing(nodes, rdd.collectAsync(), rdd)
    finally sc.setJobDescription(null)
  }
}

private final case class PlacementPartition(index: Int, node: String) extends Partition

private final class PlacementRDD(sc: SparkContext, nodes: Seq[String], spec: EndpointSpec)
    extends RDD[(String, String)](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    nodes.zipWithIndex.map { case (n, i) => PlacementPartition(i, n): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    Seq(split.asInstanceOf[PlacementPartition].node)

  override def compute(split: Partition, context: TaskContext): Iterator[(String, String)] = {
    val wanted = split.asInstanceOf[PlacementPartition].node
    val here = SparkExecutors.currentHost
    if (here != wanted) MisplacedTask.handOver(wanted, here, spec)
    NodeEndpoints.ensureRunning(spec, NodeName.current(spec.nodeNameEnv))
    Iterator(here -> wanted)
  }
}
