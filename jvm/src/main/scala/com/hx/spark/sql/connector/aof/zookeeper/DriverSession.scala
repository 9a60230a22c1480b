package com.hx.spark.sql.connector.aof.zookeeper

import org.apache.curator.framework.CuratorFramework

/**
 * The driver's ZooKeeper resources for one query run, opened together and closed together: the
 * embedded server's lease (when no address is given), the client, the run's coordinator and the
 * offset backup.
 */
final class DriverSession private (
    lease: Option[EmbeddedZooKeeper.Lease],
    val connectString: String,
    client: CuratorFramework,
    val coordinator: Coordinator,
    val backup: OffsetBackup) {

  /** Ends the run: its endpoints stop, its znodes go, then the client and the server. */
  def close(runId: String): Unit = {
    try {
      coordinator.stop()
      // In local mode the endpoint shares this JVM: let it close before its server goes.
      SnifferEndpoints.stop(runId)
      client.close()
    } finally lease.foreach(_.release())
  }
}

object DriverSession {

  /**
   * @param address  the `zookeeper.address` option; None starts the embedded server
   * @param bindHost the driver's address, where an embedded server listens for the executors
   */
  def open(
      address: Option[String],
      bindHost: String,
      metaStore: String,
      runId: String): DriverSession = {
    val lease = if (address.isEmpty) Some(EmbeddedZooKeeper.acquire(bindHost)) else None
    try {
      val connectString = address.getOrElse(lease.get.connectString)
      val client = ZkClients.open(connectString)
      val coordinator = new Coordinator(client, metaStore, runId)
      coordinator.start()
      new DriverSession(
        lease,
        connectString,
        client,
        coordinator,
        new OffsetBackup(client, metaStore))
    } catch {
      case e: Throwable =>
        lease.foreach(_.release())
        throw e
    }
  }
}
