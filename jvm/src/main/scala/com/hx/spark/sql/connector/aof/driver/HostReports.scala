package com.hx.spark.sql.connector.aof.driver

import java.util.concurrent.TimeoutException

import scala.concurrent.Await
import scala.concurrent.duration.Duration

import org.apache.spark.FutureAction
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.FileMeta
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{Planner, Reports}

/**
 * What the hosts report at each trigger, and the endpoints that answer for them: the driver's
 * state about its hosts, apart from Spark. Per trigger it starts an endpoint on every executor
 * that lacks one, asks every host for its files and gathers the answers within a bound.
 *
 * A run's first trigger waits up to `startAwaitMs` (`start.await.timeout`) for every host with
 * an executor, later ones up to `metaAwaitMs` (`meta.await.timeout`). Under `Trigger.AvailableNow`
 * every batch plans against the files as they were when it began (only where a batch may end is
 * asked again), and a host with an executor that did not answer then fails the query: finishing
 * without it would skip what it held.
 *
 * @param executors the executors Spark has now, by host
 * @param launch    starts endpoints on executors (host, id); yields (host, node) of each started
 * @param nodeNamed whether nodes are named by `node.name.env`, to be learned from the launches
 */
final class HostReports(
    executors: () => Map[String, Seq[String]],
    launch: Seq[(String, String)] => FutureAction[Seq[(String, String)]],
    nodeNamed: Boolean,
    startAwaitMs: Long,
    metaAwaitMs: Long,
    warnings: ReportWarnings) {
  private val log = LoggerFactory.getLogger(getClass)
  private val nodes = new ExecutorNodes(nodeNamed)
  @volatile private var launching: Option[FutureAction[Seq[(String, String)]]] = None
  @volatile private var launched = Set.empty[(String, String)]
  @volatile private var availableNow = false
  @volatile private var frozen: Option[Reports] = None
  @volatile private var last: Map[String, Seq[FileMeta]] = Map.empty
  @volatile private var withoutEndpoint: Set[String] = Set.empty

  /** From now on every trigger plans against the reports of the next one. */
  def freezeAtNextTrigger(): Unit = {
    availableNow = true
    frozen = None
  }

  /** The hosts' files for a trigger that starts at `start`. */
  def forTrigger(coordinator: Coordinator, start: AofOffset): Reports = {
    val reports = frozen match {
      // No cut in the first answers: no byte limit, or nothing a limit would cut; none to ask.
      case Some(first) if !first.files.values.exists(_.exists(_.cuts.nonEmpty)) => first
      case Some(first) => withCutsOf(collect(coordinator, start, everyHost = false), first)
      case None =>
        val now = collect(coordinator, start, everyHost = availableNow)
        if (availableNow) frozen = Some(now)
        now
    }
    last = reports.files
    reports
  }

  /**
   * `first`'s files, each with the batch cuts of a fresh answer about it: a node reports where a
   * batch may end from the position it was asked about, and the later batches of AvailableNow
   * start further on. A file of the same key and head holds the same lines, appended to at most.
   */
  private def withCutsOf(fresh: Reports, first: Reports): Reports =
    first.copy(files = first.files.map { case (host, files) =>
      val cuts = fresh.files.getOrElse(host, Nil).map(m => (m.key, m.fingerprint) -> m.cuts).toMap
      host -> files.map(m => cuts.get((m.key, m.fingerprint)).fold(m)(c => m.copy(cuts = c)))
    })

  /** What the last trigger planned with. */
  def lastReports: Map[String, Seq[FileMeta]] = last

  /** Hosts with an executor but no endpoint serving them, at the last trigger. */
  def hostsWithoutEndpoint: Set[String] = withoutEndpoint

  /** Spark's hosts of each node, for the hosts given. */
  def hostsByNode(hosts: Iterable[String]): Map[String, Seq[String]] = nodes.hostsByNode(hosts)

  def stop(): Unit = launching.foreach(_.cancel())

  /**
   * The first launch is waited for until `deadline`, so that the first trigger (all of
   * AvailableNow's) sees every host; later ones run on, so that a hung executor holds no
   * trigger up.
   */
  private def startEndpoints(toLaunch: Seq[(String, String)], deadline: Long): Unit = {
    val first = launching.isEmpty
    if (launching.forall(_.isCompleted)) {
      val job = launch(toLaunch)
      launching = Some(job)
      launched ++= toLaunch
      if (first) {
        try Await.ready(job, Duration.fromNanos(math.max(0L, deadline - System.nanoTime())))
        catch { case _: TimeoutException => log.warn("aof: some endpoints did not start in time") }
      }
    }
  }

  private def collect(coordinator: Coordinator, start: AofOffset, everyHost: Boolean): Reports = {
    val first = launching.isEmpty
    val (waitMs, waitOption) =
      if (first) (startAwaitMs, "start.await.timeout") else (metaAwaitMs, "meta.await.timeout")
    val deadline = System.nanoTime() + waitMs * 1000000L
    val byHost = executors()
    nodes.learn(launching)
    val before = coordinator.liveHosts()
    // Hosts without an endpoint, and executors that joined since (stand-bys to be).
    val toLaunch = byHost.toSeq
      .flatMap { case (host, ids) => ids.map(host -> _) }
      .filter(e => !nodes.of(e._1).exists(before) || !launched(e))
    // Asked before the launch: an endpoint answers the request it finds as soon as it serves.
    def ask(hosts: Set[String]) = coordinator.ask(
      hosts.map(h => h -> Planner.known(start, h)).toMap,
      hosts.map(h => h -> Planner.retired(start, h)).toMap)
    val asked = ask(before ++ byHost.keySet.flatMap(nodes.of))
    if (toLaunch.nonEmpty) startEndpoints(toLaunch, deadline)
    nodes.learn(launching)
    val wanted = byHost.keySet.flatMap(nodes.of)
    // Executors whose node is not known yet: their launch task has not run.
    val unknown = byHost.keySet.filter(nodes.of(_).isEmpty)
    val answers = coordinator.answers(
      asked ++ ask(wanted -- asked.hosts),
      math.max(0L, (deadline - System.nanoTime()) / 1000000L))
    warnings.update(answers)
    val reports = answers.files
    val live = coordinator.liveHosts()
    withoutEndpoint = wanted -- live ++ unknown
    if (withoutEndpoint.nonEmpty) {
      log.warn(s"aof: no endpoint on ${withoutEndpoint.mkString(", ")}; their files wait")
    }
    val unheard = wanted -- reports.keySet -- answers.unlisted.keySet ++ unknown
    if (everyHost && unheard.nonEmpty) {
      throw new IllegalStateException(
        s"aof: ${unheard.toSeq.sorted.mkString(", ")} did not answer within $waitMs ms " +
          s"($waitOption). Trigger.AvailableNow reads what every host with an executor holds " +
          s"at its start, so it stops rather than finish without them: raise $waitOption, or " +
          "find why their executors do not run.")
    }
    val silent = live -- reports.keySet -- answers.unlisted.keySet
    if (silent.nonEmpty) {
      log.warn(
        s"aof: ${silent.mkString(", ")} did not answer within $waitMs ms ($waitOption); " +
          "planning without them")
    }
    Reports(reports, answers.looked)
  }
}
