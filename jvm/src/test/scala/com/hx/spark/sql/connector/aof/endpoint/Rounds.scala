package com.hx.spark.sql.connector.aof.endpoint

import com.hx.spark.sql.connector.aof.driver.{Coordinator, Look}
import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.testkit.Polling

/** A coordinator's steps that the suites take in one call, where the driver interleaves them. */
object Rounds {

  /**
   * Asks, has every host look, then waits for the answers: the files of each host that answered
   * in time, news or not (a host that could not list its directory left out).
   */
  def collect(
      coordinator: Coordinator,
      requests: Map[String, Seq[KnownFile]],
      timeoutMs: Long): Map[String, Seq[FileMeta]] = {
    val answers = coordinator.answers(coordinator.ask(requests), timeoutMs, Look.Now)
    coordinator.latest.filter { case (h, _) => answers.heard(h) && !answers.unlisted.contains(h) }
  }

  /** Waits until every host in `hosts` is live; fails when the timeout passes first. */
  def awaitHosts(coordinator: Coordinator, hosts: Set[String], timeoutMs: Long): Unit =
    Polling.eventually(s"live endpoints on ${hosts.mkString(", ")}", timeoutMs)(
      hosts.subsetOf(coordinator.liveHosts()))
}
