package com.hx.spark.sql.connector.aof.cluster

import java.net.URI

import org.apache.hadoop.conf.Configuration

import com.hx.spark.sql.connector.aof.config.{ClusterManager, Nodes}

/** Which nodes a cluster manager has now. It is asked over the network, so it may fail. */
trait NodeDiscovery {

  /** Where it asks, for messages: "the standalone master at http://master:8080". */
  def source: String

  /** The nodes' names, as the executors there name their host; throws when it cannot tell. */
  def nodes(): Set[String]
}

object NodeDiscovery {

  /**
   * The discovery `nodes` asks for, in a session of the master given. Nothing is asked yet; an
   * address that cannot be found from the options, the master or the environment is refused,
   * naming the option that gives it.
   *
   * @param hadoop the session's Hadoop configuration (YARN's addresses), read only for `yarn`
   * @param env    the driver's environment (a pod's `KUBERNETES_SERVICE_HOST`)
   */
  def of(
      discovered: Nodes.Discovered,
      master: String,
      hadoop: () => Configuration,
      env: String => Option[String] = sys.env.get): NodeDiscovery = discovered.manager match {
    case ClusterManager.Standalone =>
      new StandaloneWorkers(discovered.url.map(Seq(_)).getOrElse(standaloneUrls(master)))
    case ClusterManager.Yarn => new YarnNodes(hadoop, discovered.selector)
    case ClusterManager.Kubernetes =>
      val url = discovered.url.orElse(kubernetesUrl(master, env)).getOrElse {
        throw new IllegalArgumentException(
          s"Option 'nodes' = kubernetes asks the Kubernetes API server, but the master is " +
            s"'$master' and the driver runs in no pod (KUBERNETES_SERVICE_HOST is not set): " +
            "set 'nodes.url' to the API server's address, or list the nodes.")
      }
      new KubernetesNodes(url, discovered.selector, ServiceAccount.InPod)
  }

  /** The web UI of each master of `spark://host:port[,host:port]`, on its default port. */
  private def standaloneUrls(master: String): Seq[String] = {
    if (!master.startsWith("spark://")) {
      throw new IllegalArgumentException(
        s"Option 'nodes' = standalone asks the standalone master, but the master is " +
          s"'$master': set 'nodes.url' to the master's web UI (http://master:8080), or list " +
          "the nodes.")
    }
    master
      .stripPrefix("spark://")
      .split(",")
      .toSeq
      .map(hostPort => s"http://${URI.create(s"spark://$hostPort").getHost}:8080")
  }

  /** The API server of a `k8s://` master (https when it names no scheme), or the pod's own. */
  private def kubernetesUrl(master: String, env: String => Option[String]): Option[String] =
    if (master.startsWith("k8s://")) {
      val address = master.stripPrefix("k8s://")
      Some(if (address.matches("https?://.*")) address else s"https://$address")
    } else {
      for {
        host <- env("KUBERNETES_SERVICE_HOST")
        port <- env("KUBERNETES_SERVICE_PORT")
      } yield s"https://${if (host.contains(":")) s"[$host]" else host}:$port"
    }
}
