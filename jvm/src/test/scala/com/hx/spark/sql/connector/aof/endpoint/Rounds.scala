package com.hx.spark.sql.connector.aof.endpoint

import com.hx.spark.sql.connector.aof.driver.Coordinator
import com.hx.spark.sql.connector.aof.files.{FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.testkit.Polling

/** A coordinator's steps that the suites take in one call, where the driver interleaves them. */
object Rounds {

  /** Asks, then waits for the answers: one trigger's metadata round. */
  def collect(
      coordinator: Coordinator,
      requests: Map[String, Seq[KnownFile]],
      timeoutMs: Long): Map[String, Seq[FileMeta]] =
    coordinator.answers(coordinator.ask(requests), timeoutMs).files

  /** Waits until every host in `hosts` is live; fails when the timeout passes first. */
  def awaitHosts(coordinator: Coordinator, hosts: Set[String], timeoutMs: Long): Unit =
    Polling.eventually(s"live endpoints on ${hosts.mkString(", ")}", timeoutMs)(
      hosts.subsetOf(coordinator.liveHosts()))
}
