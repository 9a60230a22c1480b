package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.protocol.SentRequest

/** The requests of one [[Coordinator.ask]], whose answers are awaited. */
final class SentRequests private[driver] (
    private[driver] val sent: Map[String, SentRequest],
    val failed: Set[String] = Set.empty) {
  def hosts: Set[String] = sent.keySet

  def ++(other: SentRequests): SentRequests =
    new SentRequests(sent ++ other.sent, failed -- other.sent.keySet ++ other.failed)
}
