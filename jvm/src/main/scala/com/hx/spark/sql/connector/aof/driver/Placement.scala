package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.endpoint.NodePlacement.Placing

/**
 * Asks for an executor on each node to read that has none, where the cluster manager places
 * executors by the hosts tasks prefer: one placement job at a time, submitted again when those
 * nodes change. The jobs that placed an executor are kept (their cached blocks keep it) until
 * the query stops.
 *
 * @param place submits a placement job for the nodes given
 */
final class Placement(place: Set[String] => Placing) {
  private var current: Option[Placing] = None
  private var placed = List.empty[Placing]

  /** @param nodes the nodes to read that have no executor now */
  def request(nodes: Set[String]): Unit = synchronized {
    val running = current.filterNot(_.isCompleted)
    if (!running.exists(_.nodes == nodes)) {
      running.foreach(_.cancel())
      placed = current.toList ++ placed
      current = if (nodes.isEmpty) None else Some(place(nodes))
    }
  }

  def stop(): Unit = synchronized {
    (current.toList ++ placed).foreach(_.release())
    current = None
    placed = Nil
  }
}

object Placement {

  /**
   * Whether placement can be asked for in a session of `master`; if not, what to do instead.
   *
   * @param dynamic   whether dynamic allocation is on
   * @param nodeNamed whether nodes are named by `node.name.env` rather than by host
   */
  def possible(master: String, dynamic: Boolean, nodeNamed: Boolean): Either[String, Unit] =
    master match {
      case m if m.startsWith("yarn") && dynamic && !nodeNamed => Right(())
      case m if m.startsWith("yarn") && nodeNamed =>
        Left(
          "YARN places executors on the hosts tasks prefer, and these nodes are named by " +
            "node.name.env: unset it to have the source ask for an executor on each.")
      case m if m.startsWith("yarn") =>
        Left(
          "Spark on YARN asks for executors on the nodes tasks prefer only under dynamic " +
            "allocation (spark.dynamicAllocation.enabled=true); without it, run an executor " +
            "on each of them (--num-executors, a node label).")
      case m if m.startsWith("spark://") =>
        Left(
          "A standalone master starts executors on the workers it picks, not where tasks " +
            "prefer: run a worker on each of these nodes with cores free for the application.")
      case m if m.startsWith("k8s://") =>
        Left(
          "Kubernetes places executor pods by their template, not where tasks prefer: run at " +
            "least one executor per node and spread them (topologySpreadConstraints on " +
            "kubernetes.io/hostname).")
      case m if m.startsWith("local") =>
        Left("Local mode reads this machine only: run on a cluster with an executor on each.")
      case _ =>
        Left("Run an executor on each of these nodes.")
    }

  /** What the warning about nodes unread says to do, for a session of `master`. */
  def advice(master: String, dynamic: Boolean, nodeNamed: Boolean): String =
    possible(master, dynamic, nodeNamed).fold(
      _ + " See docs/deploying.md#every-node-read.",
      _ =>
        "The source asks for an executor on each: a task that prefers it makes dynamic " +
          "allocation ask YARN for a container there when it adds executors. See " +
          "docs/deploying.md#every-node-read."
    )
}
