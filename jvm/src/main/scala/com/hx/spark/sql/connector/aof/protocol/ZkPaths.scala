package com.hx.spark.sql.connector.aof.protocol

import java.net.{URLDecoder, URLEncoder}
import java.nio.charset.StandardCharsets.UTF_8

/**
 * The source's znodes. Everything of one query run lives under `runs/<runId>`, so a run is removed
 * in one go and a new driver never mistakes an old run's endpoints for its own:
 *
 * {{{
 * <metaStore>/offsets                       the offset backup
 * <metaStore>/runs/<runId>/driver           ephemeral, holds the checkpoint: the run is alive
 * <metaStore>/runs/<runId>/latches/<host>   one leader among the endpoints of a host
 * <metaStore>/runs/<runId>/endpoints/<host> ephemeral: the host's serving endpoint
 * <metaStore>/runs/<runId>/requests/<host>  the driver's latest request to the host
 * <metaStore>/runs/<runId>/responses/<host> the host's latest answer to it (in full, or a change)
 * <metaStore>/runs/<runId>/look             a number the driver raises to have every host look
 * <metaStore>/runs/<runId>/changes/<host>   a number the host raises when its files changed
 * <metaStore>/runs/<runId>/pulls/<host>     a number the driver raises to have the host look
 * <metaStore>/runs/<runId>/reports          written by `status` to ask for the hosts' reports
 * <metaStore>/runs/<runId>/reports/<host>   the host's files in full, written while asked
 * <metaStore>/runs/<runId>/misplaced/<task> ephemeral: a read task on the wrong host, to be killed
 * <metaStore>/runs/<runId>/nodes            the nodes to read and those unread, for `status`
 * }}}
 */
final case class ZkPaths(metaStore: String, runId: String) {
  def offsets: String = s"$metaStore/offsets"
  def runs: String = s"$metaStore/runs"
  def run: String = s"$runs/$runId"
  def driver: String = s"$run/driver"
  def latches: String = s"$run/latches"
  def endpoints: String = s"$run/endpoints"
  def requests: String = s"$run/requests"
  def answers: String = s"$run/responses"
  def reports: String = s"$run/reports"
  def misplaced: String = s"$run/misplaced"
  def nodes: String = s"$run/nodes"
  def look: String = s"$run/look"
  def changes: String = s"$run/changes"
  def pulls: String = s"$run/pulls"
  def latch(host: String): String = s"$latches/${ZkPaths.encode(host)}"
  def endpoint(host: String): String = s"$endpoints/${ZkPaths.encode(host)}"
  def request(host: String): String = s"$requests/${ZkPaths.encode(host)}"
  def answer(host: String): String = s"$answers/${ZkPaths.encode(host)}"
  def report(host: String): String = s"$reports/${ZkPaths.encode(host)}"
  def changed(host: String): String = s"$changes/${ZkPaths.encode(host)}"
  def pull(host: String): String = s"$pulls/${ZkPaths.encode(host)}"
}

object ZkPaths {
  def encode(host: String): String = URLEncoder.encode(host, UTF_8.name)
  def decode(node: String): String = URLDecoder.decode(node, UTF_8.name)

  /** A host's real-time plans' journal: the store's, not a run's, as batches outlive runs. */
  def journal(metaStore: String, host: String): String = s"$metaStore/realtime/${encode(host)}"
}
