package com.hx.spark.sql.connector.aof.zookeeper

import com.hx.spark.sql.connector.aof.files.{FileMeta, KnownFile}

/** A coordinator's steps that the suites take in one call, where the driver interleaves them. */
object Rounds {

  /** Asks, then waits for the answers: one trigger's metadata round. */
  def collect(
      coordinator: Coordinator,
      requests: Map[String, Seq[KnownFile]],
      timeoutMs: Long): Map[String, Seq[FileMeta]] =
    coordinator.answers(coordinator.ask(requests), timeoutMs)

  /** Waits until every host in `hosts` is live or the timeout passes; returns the live ones. */
  def awaitHosts(coordinator: Coordinator, hosts: Set[String], timeoutMs: Long): Set[String] = {
    val deadline = System.nanoTime() + timeoutMs * 1000000L
    while (!hosts.subsetOf(coordinator.liveHosts()) && System.nanoTime() < deadline) {
      Thread.sleep(10)
    }
    hosts.intersect(coordinator.liveHosts())
  }
}
