package com.hx.spark.sql.connector.aof.driver

/**
 * The nodes a query must read (`nodes`) against those it reads: what each trigger found
 * ([[UnreadNodes]]), an executor asked for on the others where the cluster manager can place
 * one ([[Placement]]), and what `status` shows (`publish`).
 *
 * @param advice what to do about a node unread, in this deployment
 */
final class NodeCoverage(
    expected: ExpectedNodes,
    unread: UnreadNodes,
    placement: Option[Placement],
    val advice: String,
    publish: NodesRead => Unit) {
  @volatile private var last = NodesRead(None, Set.empty)

  /**
   * After a trigger's answers.
   *
   * @param withExecutor the nodes with an executor of the application
   * @param serving      the nodes with an endpoint serving
   */
  def update(withExecutor: Set[String], serving: Set[String]): NodesRead = {
    val now = unread.update(expected.now(), serving)
    placement.foreach(_.request(now.unread -- withExecutor))
    if (now != last) publish(now)
    last = now
    now
  }

  /** The nodes to read that are not in `answered`; None while they are not known. */
  def missing(answered: Set[String]): Option[Set[String]] = expected.now().map(_ -- answered)

  /** Where the nodes come from, for messages. */
  def source: String = expected.source

  /** What the last trigger found. */
  def state: NodesRead = last

  def stop(): Unit = placement.foreach(_.stop())
}
