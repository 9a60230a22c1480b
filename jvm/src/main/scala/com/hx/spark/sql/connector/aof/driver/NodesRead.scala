package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.metrics.MetricDefinitions

/**
 * The nodes a query must read (`nodes`) at a trigger, and those of them no endpoint serves.
 *
 * @param expected the nodes, None while the cluster manager asked has not answered once
 */
final case class NodesRead(expected: Option[Set[String]], unread: Set[String]) {

  /** The counts, once the nodes are known. */
  def figures: Map[String, Long] =
    expected.fold(Map.empty[String, Long])(all =>
      Map(
        MetricDefinitions.NodesExpected.name -> all.size.toLong,
        MetricDefinitions.NodesUnread.name -> unread.size.toLong))

  /** For `StreamingQueryProgress`: the counts, and the names of the first unread ones. */
  def metrics: Map[String, String] =
    if (expected.isEmpty) Map.empty
    else
      figures.map { case (k, v) =>
        k -> v.toString
      } +
        (MetricDefinitions.NodesUnreadNames.name -> NodesRead.named(unread, NodesRead.MetricNames))
}

object NodesRead {

  /** Most names a metric or a log line spells out; the rest are counted. */
  val MetricNames: Int = 20

  /** `a, b and 3 more`: sorted, at most `max` spelt out. */
  def named(nodes: Set[String], max: Int = MetricNames): String = {
    val sorted = nodes.toSeq.sorted
    val shown = sorted.take(max).mkString(", ")
    if (sorted.size > max) s"$shown and ${sorted.size - max} more" else shown
  }
}
