package com.hx.spark.sql.connector.aof.driver

import org.apache.spark.FutureAction
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.identity.FileKey
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{News, Planner}

/**
 * What the hosts' answers bring each trigger (its news), and the endpoints that answer: the
 * driver's state about its hosts, apart from Spark. Per trigger it starts an endpoint on every
 * executor that lacks one, asks every host for its files and gathers the answers within a bound.
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
 * @param coverage  the nodes the query must read (`nodes`), if stated: under `AvailableNow` (and
 *                  `Once`) the first trigger waits up to `nodesAwaitMs` for every one of them
 */
final class HostNews(
    executors: () => Map[String, Seq[String]],
    launch: Seq[(String, String)] => FutureAction[Seq[(String, String)]],
    nodeNamed: Boolean,
    startAwaitMs: Long,
    metaAwaitMs: Long,
    warnings: AnswerWarnings,
    coverage: Option[NodeCoverage] = None,
    nodesAwaitMs: Long = 0L) {
  import HostNews.{Round, State}

  private val log = LoggerFactory.getLogger(getClass)
  private val nodes = new ExecutorNodes(nodeNamed)
  private val launches = new EndpointLaunches(launch, nodes)
  // Replaced whole, by the thread that runs the triggers (Spark's, one at a time): other threads
  // (the metrics, the query's stop) read one trigger's state, never half of one.
  @volatile private var state = State()
  @volatile private var stopped = false
  // The offsets of the last batch Spark committed, with `cleanup`: what the hosts may remove.
  @volatile private var committed: Option[AofOffset] = None
  @volatile private var removed = 0L
  private val requestChanges = new RequestChanges
  // How many files each host left unread for `ignore.older`, as its last answer said.
  private var ignored = Map.empty[String, Int]
  // How many files each host could not remove for `cleanup`, as its last answer said.
  @volatile private var notRemoved = Map.empty[String, Int]

  /** Spark committed the batch that ends at `end`: its files read to their end may go. */
  def commit(end: AofOffset): Unit = committed = Some(end)

  /** Files the hosts removed for `cleanup` since the run began. */
  def filesRemoved: Long = removed

  /** Files the hosts could not remove for `cleanup` at their last answers. */
  def filesNotRemoved: Long = notRemoved.values.sum.toLong

  /** From now on every trigger plans against the news of the next one. */
  def freezeAtNextTrigger(): Unit = state = state.copy(availableNow = true, frozen = None)

  /**
   * The hosts' news for a trigger that starts at `start`: the hosts to plan, with their files.
   * With `look`, every endpoint looks first: a trigger that would plan nothing new asks again so.
   */
  def forTrigger(coordinator: Coordinator, start: AofOffset, look: Boolean = false): News = {
    val before = state
    val (news, after) = before.frozen match {
      // No cut in the first answers: no byte limit, or nothing a limit would cut; none to ask.
      case Some(first) if !first.files.values.exists(_.exists(_.cuts.nonEmpty)) => (first, before)
      case Some(first) =>
        val fresh = collect(coordinator, start, everyHost = false, before, Look.Never)
        (withCutsOf(fresh.news, first), fresh.after)
      case None if before.availableNow =>
        val waited = coverage.fold(before)(awaitNodes(coordinator, start, before, _))
        val round = collect(coordinator, start, everyHost = true, waited, Look.Now)
        if (round.unheard.nonEmpty) {
          state = round.after // the query fails: its stop cancels this trigger's launch too
          throw AvailableNowErrors.unheard(round.unheard, round.waited, round.waitOption)
        }
        coverage
          .flatMap(AvailableNowErrors.missing(_, round.news.answered, nodesAwaitMs))
          .foreach(e => throw e)
        (round.news, round.after.copy(frozen = Some(round.news)))
      case None =>
        val round = collect(
          coordinator,
          start,
          everyHost = false,
          before,
          if (look) Look.AfterWait else Look.Never)
        (round.news, round.after)
    }
    state = after.copy(last = news)
    news
  }

  /**
   * `first`'s files, each with the batch cuts of a fresh answer about it: a node reports where a
   * batch may end from the position it was asked about, and the later batches of AvailableNow
   * start further on. A file of the same key and head holds the same lines, appended to at most.
   */
  private def withCutsOf(fresh: News, first: News): News =
    first.copy(files = first.files.map { case (host, files) =>
      val cuts = fresh.files.getOrElse(host, Nil).map(m => (m.key, m.fingerprint) -> m.cuts).toMap
      host -> files.map(m => cuts.get((m.key, m.fingerprint)).fold(m)(c => m.copy(cuts = c)))
    })

  /**
   * Triggers again until every node to read has answered, or `nodesAwaitMs` have passed: an
   * executor may be on its way there (a placement, a worker starting). The state after them.
   */
  private def awaitNodes(
      coordinator: Coordinator,
      start: AofOffset,
      before: State,
      nodes: NodeCoverage): State = {
    val deadline = System.nanoTime() + nodesAwaitMs * 1000000L
    var round = collect(coordinator, start, everyHost = false, before, Look.Never)
    while (!nodes.missing(round.news.answered).contains(Set.empty) &&
      System.nanoTime() < deadline) {
      Thread.sleep(HostNews.NodesPollMs) // executors starting are awaited
      round = collect(coordinator, start, everyHost = false, round.after, Look.Never)
    }
    round.after
  }

  /** What the last trigger planned with. */
  def lastNews: News = state.last

  /** The nodes to read and those unread at the last trigger, when `nodes` is stated. */
  def nodesRead: Option[NodesRead] = coverage.map(_.state)

  /** Hosts with an executor but no endpoint serving them, at the last trigger. */
  def hostsWithoutEndpoint: Set[String] = state.withoutEndpoint

  /** Spark's hosts of each node, for the hosts given. */
  def hostsByNode(hosts: Iterable[String]): Map[String, Seq[String]] = nodes.hostsByNode(hosts)

  def stop(): Unit = {
    stopped = true
    state.launching.foreach(_.cancel())
    coverage.foreach(_.stop())
  }

  /**
   * One round: endpoints started on the executors that lack one, every host asked, the answers
   * gathered until the round's deadline. With `everyHost` (AvailableNow), hosts with an executor
   * that did not answer are the caller's to fail on, not warned about.
   */
  private def collect(
      coordinator: Coordinator,
      start: AofOffset,
      everyHost: Boolean,
      before: State,
      look: Look): Round = {
    val (waitMs, waitOption) =
      if (before.launching.isEmpty) (startAwaitMs, "start.await.timeout")
      else (metaAwaitMs, "meta.await.timeout")
    val deadline = System.nanoTime() + waitMs * 1000000L
    val byHost = executors()
    nodes.learn(before.launching)
    val serving = coordinator.liveHosts()
    // Asked before the launch: an endpoint answers the request it finds as soon as it serves.
    val asked = ask(coordinator, start, serving ++ byHost.keySet.flatMap(nodes.of))
    val (launched, launching) =
      launches.missing(byHost, serving, deadline, before.launched, before.launching)
    val wanted = byHost.keySet.flatMap(nodes.of)
    val answers = coordinator.answers(
      asked ++ ask(coordinator, start, wanted -- asked.hosts),
      math.max(0L, (deadline - System.nanoTime()) / 1000000L),
      look)
    // AvailableNow wants what every host holds now: only those that answered its look count.
    val current = if (everyHost) answers.heard else coordinator.current
    val census = heardFrom(coordinator, answers, current, wanted, byHost.keySet)
    val after =
      before.copy(
        launching = launching,
        launched = launched,
        withoutEndpoint = census.withoutEndpoint)
    val waited = s"$waitMs ms ($waitOption)"
    if (census.silent.nonEmpty && !(everyHost && census.unheard.nonEmpty)) {
      log.warn(
        s"aof: ${census.silent.mkString(", ")} did not answer within $waited; " +
          "planning without them")
    }
    val news = newsOf(coordinator, answers, current, everyHost)
    Round(news, after, census.unheard, waited, waitOption)
  }

  /** A round's news, from its answers; the figures kept across rounds brought up to date. */
  private def newsOf(
      coordinator: Coordinator,
      answers: Answers,
      current: Set[String],
      everyHost: Boolean): News = {
    removed += answers.removed
    ignored = ignored ++ answers.ignored -- answers.unlisted.keySet
    notRemoved = notRemoved ++ answers.notRemoved -- answers.unlisted.keySet
    val latest = coordinator.latest
    // AvailableNow plans every host that answered, its news or not: a plan is a fixed point.
    val files = if (everyHost) latest.filter(h => current(h._1)) ++ answers.files else answers.files
    News(files, answers.looked, ignored, current, latest)
  }

  /**
   * The request of each host where what the driver tracks may have changed ([[RequestChanges]]),
   * from the offsets the trigger starts at, and the files it may remove: read to their end in the
   * batch last committed, and not read further since.
   */
  private def ask(coordinator: Coordinator, start: AofOffset, hosts: Set[String]): SentRequests = {
    val changed = requestChanges.of(hosts, start, committed)
    val sent = coordinator.ask(
      changed.map(h => h -> Planner.known(start, h)).toMap,
      changed.map(h => h -> Planner.retired(start, h)).toMap,
      committed.fold(Map.empty[String, Seq[FileKey]]) { c =>
        changed.map(h => h -> Planner.removable(c, start, h)).toMap
      }
    )
    requestChanges.asked(changed -- sent.failed, start, committed)
    sent
  }

  /** Which hosts answered, which have no endpoint, which said nothing: warned about, kept. */
  private def heardFrom(
      coordinator: Coordinator,
      answers: Answers,
      current: Set[String],
      wanted: Set[String],
      hosts: Set[String]): HostCensus = {
    warnings.update(answers)
    val census = HostCensus(
      wanted,
      hosts.filter(nodes.of(_).isEmpty),
      coordinator.liveHosts(),
      current,
      answers.unlisted.keySet,
      answers.heard)
    // A stop cancels the launch and ends the wait: nothing is missing then.
    if (census.withoutEndpoint.nonEmpty && !stopped) {
      log.warn(s"aof: no endpoint on ${census.withoutEndpoint.mkString(", ")}; their files wait")
    }
    coverage.foreach(_.update(wanted, census.live))
    census
  }
}

object HostNews {
  private type Launch = EndpointLaunches.Launch

  /** How often `AvailableNow` looks again for the nodes to read that have not answered. */
  private val NodesPollMs = 1000L

  /**
   * One round of asking: the news, the state after it, the hosts with an executor that did
   * not answer, and how long it waited (and by which option).
   */
  private final case class Round(
      news: News,
      after: State,
      unheard: Set[String],
      waited: String,
      waitOption: String)

  /**
   * What is kept between triggers.
   *
   * @param launching       the last launch job, if any
   * @param launched        the executors (host, id) launched on so far
   * @param availableNow    whether every trigger plans against the news of the first
   * @param frozen          that news, once taken
   * @param last            what the last trigger planned with
   * @param withoutEndpoint hosts with an executor but no endpoint serving, at the last trigger
   */
  private final case class State(
      launching: Option[Launch] = None,
      launched: Set[(String, String)] = Set.empty,
      availableNow: Boolean = false,
      frozen: Option[News] = None,
      last: News = News(Map.empty),
      withoutEndpoint: Set[String] = Set.empty)
}
