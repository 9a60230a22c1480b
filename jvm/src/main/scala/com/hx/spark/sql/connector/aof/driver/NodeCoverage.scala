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
  // None before the first trigger: its state is published whatever it is.
  @volatile private var last: Option[NodesRead] = None

  /**
   * After a trigger's answers.
   *
   * @param withExecutor the nodes with an executor of the application
   * @param serving      the nodes with an endpoint serving
   */
  def update(withExecutor: Set[String], serving: Set[String]): NodesRead = {
    val now = unread.update(expected.now(), serving)
    placement.foreach(_.request(now.unread -- withExecutor))
    if (!last.contains(now)) publish(now)
    last = Some(now)
    now
  }

  /** The nodes to read that are not in `answered`; None while they are not known. */
  def missing(answered: Set[String]): Option[Set[String]] = expected.now().map(_ -- answered)

  /** Where the nodes come from, for messages. */
  def source: String = expected.source

  /** What the last trigger found. */
  def state: NodesRead = last.getOrElse(NodesRead(None, Set.empty))

  def stop(): Unit = placement.foreach(_.stop())
}
