package com.hx.spark.sql.connector.aof.driver

import org.apache.curator.framework.CuratorFramework

import com.hx.spark.sql.connector.aof.config.ZooKeeperSecurity
import com.hx.spark.sql.connector.aof.endpoint.EndpointLauncher
import com.hx.spark.sql.connector.aof.protocol.ZkPaths
import com.hx.spark.sql.connector.aof.zookeeper.{EmbeddedZooKeeper, ZkAccess, ZkClients}

/**
 * The driver's ZooKeeper resources for one query run, opened together and closed together: the
 * embedded server's lease (when no address is given), the client, the run's coordinator, the
 * watch on misplaced tasks and the offset backup.
 */
final class DriverSession private (
    lease: Option[EmbeddedZooKeeper.Lease],
    val access: ZkAccess,
    client: CuratorFramework,
    val coordinator: Coordinator,
    misplaced: MisplacedTaskWatch,
    val backup: OffsetBackup) {

  /** Ends the run: its endpoints stop, its znodes go, then the client and the server. */
  def close(runId: String): Unit = {
    try {
      misplaced.close()
      coordinator.stop()
      EndpointLauncher.stopInDriver(runId)
      client.close()
    } finally lease.foreach(_.release())
  }
}

object DriverSession {

  /**
   * @param address  the `zookeeper.address` option; None starts the embedded server
   * @param listen   where an embedded server listens for the executors, and whether it is secured
   * @param runKey   the run's secret sealing requests and answers
   * @param kill     kills a task attempt (with the reason given) that ran on the wrong host
   * @param checkpoint the query's checkpoint: another query's run on `metaStore` is refused
   */
  def open(
      address: Option[String],
      listen: EmbeddedZooKeeper.Listen,
      sessionTimeoutMs: Int,
      security: ZooKeeperSecurity,
      metaStore: String,
      runId: String,
      runKey: String,
      kill: (Long, String) => Unit,
      checkpoint: Option[String] = None): DriverSession = {
    SparkStopOverflow.quiet
    val lease =
      if (address.isEmpty) Some(EmbeddedZooKeeper.acquire(listen.host, listen.secured)) else None
    try {
      val connectString = address.getOrElse(lease.get.connectString)
      // The embedded server's own login, handed to the executors with the access.
      val secured = lease.flatMap(_.auth).fold(security)(a => security.copy(digest = Some(a)))
      val access = ZkAccess(connectString, sessionTimeoutMs, secured, lease.nonEmpty)
      val client = ZkClients.open(access, metaStore)
      try {
        if (lease.exists(_.auth.nonEmpty)) ZkClients.lockRoot(client)
        val coordinator = new Coordinator(client, metaStore, runId, runKey, secured, checkpoint)
        coordinator.start()
        val misplaced = new MisplacedTaskWatch(client, ZkPaths(metaStore, runId), runKey)
        misplaced.start(kill)
        val backup = new OffsetBackup(client, metaStore)
        new DriverSession(lease, access, client, coordinator, misplaced, backup)
      } catch {
        case e: Throwable =>
          client.close()
          throw e
      }
    } catch {
      case e: Throwable =>
        lease.foreach(_.release())
        throw e
    }
  }
}
