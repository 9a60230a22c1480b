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
    val client = YarnClient.createYarnClient()
    client.init(new YarnConfiguration(hadoop()))
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
