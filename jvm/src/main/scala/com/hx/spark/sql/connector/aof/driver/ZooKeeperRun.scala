package com.hx.spark.sql.connector.aof.driver

import java.time.Clock
import java.util.UUID

import org.apache.spark.SparkContext
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.cluster.NodeDiscovery
import com.hx.spark.sql.connector.aof.config.{AofOptions, Nodes}
import com.hx.spark.sql.connector.aof.endpoint.{EndpointLauncher, EndpointSpec, NodePlacement}
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.News
import com.hx.spark.sql.connector.aof.protocol.MessageSeal
import com.hx.spark.sql.connector.aof.zookeeper.EmbeddedZooKeeper

/**
 * A query run served through ZooKeeper: its session (opened at the first call that needs it, so
 * that defining a query touches no server), the endpoints it launches with Spark jobs, and the
 * backup of the checkpoint's committed offsets.
 *
 * @param listen    where an embedded ZooKeeper listens for the executors, and whether it is secured
 * @param committed the checkpoint's last committed offsets as JSON, if any
 * @param checkpoint the query's checkpoint location (of its source), which names the query
 */
final class ZooKeeperRun(
    options: AofOptions,
    sc: SparkContext,
    listen: EmbeddedZooKeeper.Listen,
    committed: () => Option[String],
    checkpoint: String)
    extends QueryRun {
  private val log = LoggerFactory.getLogger(getClass)
  private val runId = UUID.randomUUID().toString
  private val runKey = MessageSeal.newKey()
  @volatile private var opened: Option[DriverSession] = None

  private def session: DriverSession = synchronized {
    opened.getOrElse {
      val s = DriverSession.open(
        options.zookeeperAddress,
        listen,
        options.zookeeperSessionTimeoutMs,
        options.zookeeperSecurity,
        options.metaStore,
        runId,
        runKey,
        (task, reason) =>
          // Said, so that a misplaced task left running (it fails after 30 s) can be told apart
          // from one whose report never came.
          if (!sc.killTaskAttempt(task, interruptThread = true, reason)) {
            log.warn(s"aof: task attempt $task is not running, so it was not killed: $reason")
          },
        Some(checkpoint)
      )
      opened = Some(s)
      s
    }
  }

  private val hosts = new HostNews(
    () => EndpointLauncher.executorsByHost(sc),
    executors => EndpointLauncher.launch(sc, executors, endpoint),
    options.nodeNameEnv.isDefined,
    options.startAwaitTimeoutMs,
    options.metaAwaitTimeoutMs,
    // What a node found missing: for a pattern, where its wildcards start.
    new AnswerWarnings(options.files.roots.map(_.toString), log.warn(_), log.info(_)),
    options.nodes.map(coverage),
    options.nodesAwaitTimeoutMs
  )
  private val backup = new CommittedBackup(committed)

  /** The nodes to read (`nodes`), and an executor asked for on those unread where it can be. */
  private def coverage(nodes: Nodes): NodeCoverage = {
    val dynamic = sc.getConf.getBoolean("spark.dynamicAllocation.enabled", false)
    val named = options.nodeNameEnv.isDefined
    val expected = nodes match {
      case Nodes.Listed(names) => ExpectedNodes.listed(names)
      case d: Nodes.Discovered =>
        val discovery = NodeDiscovery.of(d, sc.master, () => sc.hadoopConfiguration)
        ExpectedNodes.discovered(
          discovery,
          d.refreshMs,
          Clock.systemUTC(),
          log.warn(_),
          log.info(_))
    }
    val placement = Placement
      .possible(sc.master, dynamic, named)
      .toOption
      .map(_ => new Placement(NodePlacement.place(sc, _, endpoint)))
    val advice = Placement.advice(sc.master, dynamic, named)
    new NodeCoverage(
      expected,
      new UnreadNodes(
        ZooKeeperRun.WarnAfterTriggers,
        ZooKeeperRun.WarnAfterMs,
        Clock.systemUTC(),
        advice,
        log.warn(_),
        log.info(_)),
      placement,
      advice,
      read => opened.foreach(_.coordinator.publish(read))
    )
  }

  override def backedUp(): Option[String] = session.backup.read()

  override def news(start: AofOffset, look: Boolean): News =
    hosts.forTrigger(session.coordinator, start, look)

  override def freezeAtNextTrigger(): Unit = hosts.freezeAtNextTrigger()

  override def backUpSoon(): Unit = backup.soon(session.backup)

  override def lastNews: News = hosts.lastNews

  override def commit(end: AofOffset): Unit = if (options.cleanup.nonEmpty) hosts.commit(end)

  override def filesRemoved: Long = hosts.filesRemoved

  override def filesNotRemoved: Long = hosts.filesNotRemoved

  override def hostsWithoutEndpoint: Set[String] = hosts.hostsWithoutEndpoint

  override def nodesRead: Option[NodesRead] = hosts.nodesRead

  override def hostsByNode(all: Iterable[String]): Map[String, Seq[String]] =
    hosts.hostsByNode(all)

  override def zookeeperAddress: Option[String] = opened.map(_.access.connectString)

  override def endpoint: EndpointSpec = EndpointSpec(
    runId,
    session.access,
    options.metaStore,
    options.files,
    options.md5SampleLength,
    runKey,
    options.nodeNameEnv,
    options.read,
    options.batchCuts,
    options.ignoreOlderMs,
    options.cleanup
  )

  override def stop(): Unit = synchronized {
    hosts.stop()
    backup.stop()
    opened.foreach { s =>
      backup.now(s.backup)
      s.close(runId)
    }
    opened = None
  }
}

object ZooKeeperRun {

  /** Triggers in a row, and milliseconds, a node to read goes unread before it is warned about. */
  val WarnAfterTriggers: Int = 3
  val WarnAfterMs: Long = 10000L
}
