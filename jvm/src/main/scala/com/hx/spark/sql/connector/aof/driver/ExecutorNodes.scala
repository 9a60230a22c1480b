package com.hx.spark.sql.connector.aof.driver

import scala.util.Success

import org.apache.spark.FutureAction

/**
 * Which node each executor host is on, as the launch tasks found it ([[NodeName]]). Without
 * `node.name.env` every host is its own node and there is nothing to learn.
 */
final class ExecutorNodes(byEnvironment: Boolean) {
  @volatile private var learned = Map.empty[String, String]

  /** Takes in what a finished launch job found. */
  def learn(launch: Option[FutureAction[Seq[(String, String)]]]): Unit =
    launch.flatMap(_.value).foreach {
      case Success(found) => learned ++= found
      case _ => ()
    }

  /** The host's node, None while no launch task has run there. */
  def of(host: String): Option[String] = if (byEnvironment) learned.get(host) else Some(host)

  /** The hosts of each node (a host of unknown node as its own). */
  def hostsByNode(hosts: Iterable[String]): Map[String, Seq[String]] =
    hosts.toSeq.groupBy(h => of(h).getOrElse(h)).map { case (node, hs) => node -> hs.sorted }
}
