package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.News

/**
 * The driver's side of one query run, apart from Spark: what the hosts hold at each trigger, the
 * endpoints that tell it, and the offset backup. The stream only translates Spark's calls into
 * these, as Spark's Kafka source does with its offset reader: [[ZooKeeperRun]] serves them
 * through ZooKeeper, and the stream's suite serves them from memory.
 */
trait QueryRun {

  /** The offsets backed up in ZooKeeper by an earlier run of the query, as JSON, if any. */
  def backedUp(): Option[String]

  /**
   * The hosts' news for a trigger that starts at `start`: the files of the hosts to plan, by
   * host. With `look`, every host looks first, so nothing written before the call is left out
   * (asked when the news alone would plan nothing new). After [[freezeAtNextTrigger]], every
   * trigger gets the next one's.
   */
  def news(start: AofOffset, look: Boolean = false): News

  /** Under `Trigger.AvailableNow`: every batch plans against the files as they were at its start. */
  def freezeAtNextTrigger(): Unit

  /** Copies the checkpoint's last committed offsets to the backup, off the caller's thread. */
  def backUpSoon(): Unit

  /**
   * Spark committed the batch that ends at `end`. With `cleanup`, the files it read to their
   * end may be removed from the next trigger on.
   */
  def commit(end: AofOffset): Unit = ()

  /** Files `cleanup` removed since the run began. */
  def filesRemoved: Long = 0L

  /** Files `cleanup` could not remove at the last tries. */
  def filesNotRemoved: Long = 0L

  /** What the last trigger planned with. */
  def lastNews: News

  /** Hosts with an executor but no endpoint serving them, at the last trigger. */
  def hostsWithoutEndpoint: Set[String]

  /** The nodes to read and those unread at the last trigger, when `nodes` is stated. */
  def nodesRead: Option[NodesRead] = None

  /** Spark's hosts of each node, for the hosts given. */
  def hostsByNode(hosts: Iterable[String]): Map[String, Seq[String]]

  /** The ZooKeeper connect string of the run (the embedded server's too), once connected. */
  def zookeeperAddress: Option[String]

  /** What the read tasks carry to start (or join) their node's endpoint. */
  def endpoint: EndpointSpec

  /** Ends the run: a last backup, then its endpoints and znodes go. */
  def stop(): Unit
}
