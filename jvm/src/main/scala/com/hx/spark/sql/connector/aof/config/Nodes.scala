package com.hx.spark.sql.connector.aof.config

/**
 * The `nodes` option: the nodes whose files a query must read, each read or named. Listed by
 * name, or discovered from a cluster manager and asked again every `refreshMs`.
 */
sealed trait Nodes

object Nodes {

  /** The nodes named, as the `host` column shows them. */
  final case class Listed(names: Set[String]) extends Nodes

  /**
   * The nodes a cluster manager has now.
   *
   * @param selector a YARN node label, or a Kubernetes label selector
   * @param url      where the manager answers, when not found from the session
   */
  final case class Discovered(
      manager: ClusterManager,
      selector: Option[String],
      url: Option[String],
      refreshMs: Long)
      extends Nodes
}
