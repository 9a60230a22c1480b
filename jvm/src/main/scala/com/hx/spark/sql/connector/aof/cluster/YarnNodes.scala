package com.hx.spark.sql.connector.aof.cluster

import scala.collection.JavaConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.yarn.api.records.NodeState
import org.apache.hadoop.yarn.client.api.YarnClient
import org.apache.hadoop.yarn.conf.YarnConfiguration

/**
 * The RUNNING NodeManagers of YARN's ResourceManager, through YARN's own client: it finds the
 * ResourceManager from the Hadoop configuration (yarn-site.xml, failover included) and logs in
 * as the application does on a secured cluster.
 *
 * @param label a node label the NodeManagers must have
 */
final class YarnNodes(hadoop: () => Configuration, label: Option[String]) extends NodeDiscovery {
  override def source: String =
    "YARN's ResourceManager" + label.fold("")(l => s" (nodes labelled $l)")

  override def nodes(): Set[String] = {
    val conf = new YarnConfiguration(hadoop())
    // YARN's client retries a ResourceManager out of reach for 15 minutes by default: a trigger
    // waits for it, so it gives up sooner and asks again at the next refresh.
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_MAX_WAIT_MS, 10000L)
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 1000L)
    val client = YarnClient.createYarnClient()
    client.init(conf)
    client.start()
    try {
      client
        .getNodeReports(NodeState.RUNNING)
        .asScala
        .filter(r => label.forall(l => Option(r.getNodeLabels).exists(_.contains(l))))
        .map(_.getNodeId.getHost)
        .toSet
    } finally client.stop()
  }
}
