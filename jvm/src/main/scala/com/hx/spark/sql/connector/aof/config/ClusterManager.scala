package com.hx.spark.sql.connector.aof.config

import java.util.Locale

/** A cluster manager that can say which nodes it has. */
sealed abstract class ClusterManager(val name: String)

object ClusterManager {
  case object Standalone extends ClusterManager("standalone")
  case object Yarn extends ClusterManager("yarn")
  case object Kubernetes extends ClusterManager("kubernetes")

  val All: Seq[ClusterManager] = Seq(Standalone, Yarn, Kubernetes)

  def named(name: String): Option[ClusterManager] =
    All.find(_.name == name.trim.toLowerCase(Locale.ROOT))
}
