package com.hx.spark.sql.connector.aof.endpoint

import org.apache.curator.framework.CuratorFramework
import org.apache.spark.{TaskContext, TaskKilledException}
import org.apache.zookeeper.CreateMode
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{MisplacedTasks, ZkPaths}
import com.hx.spark.sql.connector.aof.zookeeper.ZkClients

/**
 * What a read task does on a host other than its files': it has the driver kill it, so that Spark
 * queues it again for its own host without counting a failure (see [[MisplacedTasks]]). It fails
 * only when the driver does not kill it in time, as when ZooKeeper cannot be reached.
 */
object MisplacedTask {
  private val log = LoggerFactory.getLogger(getClass)

  /** A foreign slot takes such a task at most about once a second, not in a tight loop. */
  private val PauseMs = 1000L
  private val KillWaitMs = 30000L

  def handOver(wanted: String, here: String, endpoint: EndpointSpec): Nothing = {
    val context = Option(TaskContext.get())
    context.foreach { task =>
      Thread.sleep(PauseMs)
      try {
        val report = reportMisplaced(endpoint, task.taskAttemptId(), wanted, here)
        try {
          val deadline = System.nanoTime() + KillWaitMs * 1000000L
          while (!task.isInterrupted() && System.nanoTime() < deadline) Thread.sleep(50)
        } finally report.close()
      } catch {
        case e: InterruptedException => throw e
        case e: Exception => log.warn(s"aof: could not ask the driver to queue this task again: $e")
      }
      if (task.isInterrupted()) throw new TaskKilledException(MisplacedTasks.reason(wanted, here))
    }
    throw new IllegalStateException(
      s"aof: a task for files of host $wanted ran on host $here, which cannot read that host's " +
        s"files, and the driver did not queue it again within ${KillWaitMs / 1000} s. Make sure " +
        "ZooKeeper can be reached from the executors and that host has a live executor.")
  }

  /** Asks for the kill; the znode goes with the client, closed when the task ends. */
  private def reportMisplaced(
      spec: EndpointSpec,
      taskAttemptId: Long,
      wanted: String,
      ran: String): CuratorFramework = {
    val client = ZkClients.open(spec.zk, spec.metaStore)
    try {
      client
        .create()
        .creatingParentsIfNeeded()
        .withMode(CreateMode.EPHEMERAL)
        .forPath(
          s"${ZkPaths(spec.metaStore, spec.runId).misplaced}/$taskAttemptId",
          MisplacedTasks.encode(taskAttemptId, wanted, ran, spec.runKey))
      client
    } catch {
      case e: Throwable =>
        client.close()
        throw e
    }
  }
}
