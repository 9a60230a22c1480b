package com.hx.spark.sql.connector.aof.driver

import java.net.UnknownHostException
import java.time.Clock

import scala.util.{Failure, Success, Try}

import com.hx.spark.sql.connector.aof.cluster.NodeDiscovery

/**
 * The nodes a query must read now (`nodes`): those listed, or those a cluster manager named when
 * last asked, asked again once `refreshMs` have passed by the clock. A manager that cannot be
 * asked leaves the nodes as it last named them; until it has answered once they are not known.
 * Each failure and each change of the nodes is said once.
 */
final class ExpectedNodes private (
    listed: Option[Set[String]],
    discovery: Option[NodeDiscovery],
    refreshMs: Long,
    clock: Clock,
    warn: String => Unit,
    info: String => Unit) {
  private var known = listed
  private var askedAtMs: Option[Long] = None
  private var failing: Option[String] = None

  /** The nodes now, asking the cluster manager first when it is time to. */
  def now(): Option[Set[String]] = synchronized {
    discovery.foreach { d =>
      if (askedAtMs.forall(at => clock.millis() - at >= refreshMs)) ask(d)
    }
    known
  }

  /** Where the nodes come from, for messages. */
  def source: String = discovery.fold("option 'nodes'")(_.source)

  private def ask(d: NodeDiscovery): Unit = {
    askedAtMs = Some(clock.millis())
    Try(d.nodes()) match {
      case Success(nodes) =>
        if (failing.nonEmpty) info(s"aof: ${d.source} answers again")
        failing = None
        if (!known.contains(nodes)) info(ExpectedNodes.change(d.source, known, nodes))
        known = Some(nodes)
      case Failure(e) =>
        val why = (e match {
          case _: UnknownHostException => s"unknown host ${e.getMessage}"
          case _ => Option(e.getMessage).getOrElse(e.toString)
        }).replaceAll("\\s+", " ")
        if (!failing.contains(why)) {
          val meanwhile = known.fold("no node to read is known yet")(k =>
            s"the ${k.size} nodes it named before stay those to read")
          warn(
            s"aof: cannot ask ${d.source} for the nodes to read ($why); $meanwhile. It is " +
              s"asked again every ${refreshMs / 1000} s (nodes.refresh.interval).")
        }
        failing = Some(why)
    }
  }
}

object ExpectedNodes {

  /** The nodes listed: nothing to ask. */
  def listed(names: Set[String]): ExpectedNodes =
    new ExpectedNodes(Some(names), None, Long.MaxValue, Clock.systemUTC(), _ => (), _ => ())

  def discovered(
      discovery: NodeDiscovery,
      refreshMs: Long,
      clock: Clock,
      warn: String => Unit,
      info: String => Unit): ExpectedNodes =
    new ExpectedNodes(None, Some(discovery), refreshMs, clock, warn, info)

  private def change(source: String, before: Option[Set[String]], now: Set[String]): String =
    before match {
      case None if now.isEmpty => s"aof: $source names no node to read"
      case None => s"aof: $source names ${now.size} nodes to read: ${NodesRead.named(now)}"
      case Some(b) =>
        val (added, gone) = (now -- b, b -- now)
        val changes = Seq("new" -> added, "gone" -> gone).collect {
          case (what, nodes) if nodes.nonEmpty => s"$what ${NodesRead.named(nodes)}"
        }
        s"aof: $source names ${now.size} nodes to read now (${changes.mkString("; ")})"
    }
}
