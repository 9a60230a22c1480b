package com.hx.spark.sql.connector.aof.driver

import java.time.Clock

/**
 * Which of the nodes a query must read have no endpoint, trigger after trigger, and what is said
 * of them: a warning naming those unread for `warnAfter` triggers and `warnAfterMs` by the clock
 * in a row, once each time that set grows, and a line when one of them is read again. A node is
 * read while an endpoint serves it: its files wait for the next trigger at most. Both bounds,
 * as a query with nothing to read triggers every few milliseconds, and a node's endpoint takes
 * seconds to come back with a new executor.
 *
 * @param advice what to do about nodes unread, where this deployment can (see [[Placement]])
 */
final class UnreadNodes(
    warnAfter: Int,
    warnAfterMs: Long,
    clock: Clock,
    advice: String,
    warn: String => Unit,
    info: String => Unit) {
  // Per node unread: the triggers in a row, and when the first of them ran.
  private var streaks = Map.empty[String, (Int, Long)]
  private var warned = Set.empty[String]

  /**
   * @param expected the nodes to read, if known
   * @param read     the nodes an endpoint serves now
   */
  def update(expected: Option[Set[String]], read: Set[String]): NodesRead = {
    val unread = expected.fold(Set.empty[String])(_ -- read)
    val now = clock.millis()
    streaks = unread.map { n =>
      n -> streaks.get(n).fold((1, now)) { case (triggers, since) => (triggers + 1, since) }
    }.toMap
    val long = streaks.collect {
      case (n, (triggers, since)) if triggers >= warnAfter && now - since >= warnAfterMs => n
    }.toSet
    if ((long -- warned).nonEmpty) warn(warning(expected.get, long, read))
    val back = (warned -- long).filter(read)
    if (back.nonEmpty) info(s"aof: ${NodesRead.named(back)} read again")
    warned = long
    NodesRead(expected, unread)
  }

  private def warning(expected: Set[String], unread: Set[String], read: Set[String]): String = {
    val strangers = read -- expected
    // A node listed under another name than its executors' host (a full name for a short one)
    // shows as unread while it is read under the other name.
    val names =
      if (strangers.isEmpty) ""
      else
        s" Nodes are named as the host column shows them; read but not named in 'nodes': " +
          s"${NodesRead.named(strangers, 5)}."
    s"aof: ${unread.size} of the ${expected.size} nodes to read ('nodes') have had no " +
      s"endpoint for ${warnAfterMs / 1000} s: ${NodesRead.named(unread)}. Their files wait for " +
      "an executor there, and what logrotate deletes meanwhile is lost. " + advice + names
  }
}
