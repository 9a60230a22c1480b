package com.hx.spark.sql.connector.aof.driver

/**
 * Why a `Trigger.AvailableNow` (or `Once`) query stops rather than finish: it reads what every
 * host holds at its start, and finishing without one would skip what that host held.
 */
private[driver] object AvailableNowErrors {

  /** Hosts with an executor that did not answer within `waited` (set by `option`). */
  def unheard(hosts: Set[String], waited: String, option: String): IllegalStateException =
    new IllegalStateException(
      s"aof: ${hosts.toSeq.sorted.mkString(", ")} did not answer within $waited. " +
        "Trigger.AvailableNow reads what every host with an executor holds at its start, so it " +
        s"stops rather than finish without them: raise $option, or find why their executors " +
        "do not run.")

  /** The nodes of `nodes` that did not answer, or that could not be named, if any. */
  def missing(
      nodes: NodeCoverage,
      answered: Set[String],
      nodesAwaitMs: Long): Option[IllegalStateException] = {
    val wait = s"within $nodesAwaitMs ms (nodes.await.timeout)"
    val fix = "raise nodes.await.timeout, or leave the nodes that hold no logs out of 'nodes'."
    nodes.missing(answered) match {
      case Some(none) if none.isEmpty => None
      case Some(unread) =>
        Some(
          new IllegalStateException(
            s"aof: ${NodesRead.named(unread)} of 'nodes' did not answer $wait. " +
              "Trigger.AvailableNow and Trigger.Once read what every node to read holds, so the " +
              s"query stops rather than finish without them. ${nodes.advice} Or $fix"))
      case None =>
        Some(
          new IllegalStateException(
            s"aof: ${nodes.source} did not name the nodes to read $wait, so " +
              "Trigger.AvailableNow and Trigger.Once cannot tell that they read every one: see " +
              s"the warning above for why, or list the nodes in 'nodes'. Or $fix"))
    }
  }
}
