package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.TimeUnit

import scala.collection.mutable

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{
  PathChildrenCache, PathChildrenCacheEvent, PathChildrenCacheListener
}
import org.apache.curator.framework.recipes.nodes.PersistentNode
import org.apache.zookeeper.CreateMode
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.config.ZooKeeperSecurity
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.protocol.{
  HostExchanges, Messages, NodesValue, Request, SentRequest, ZkPaths, ZnodeValues
}
import com.hx.spark.sql.connector.aof.zookeeper.{ChildrenCaches, ZkClients}

/**
 * Carries the driver's side of the exchange ([[HostExchanges]]) through ZooKeeper for one query
 * run: owns the run's znodes, knows which hosts have a live endpoint, writes the requests and
 * gathers the answers within a timeout. Waiting is driven by ZooKeeper watches, not by polling.
 *
 * @param checkpoint the query's checkpoint, kept in the run's driver znode: a run of another
 *                   checkpoint alive on the same store is refused (both would keep one backup)
 */
final class Coordinator(
    client: CuratorFramework,
    metaStore: String,
    runId: String,
    runKey: String,
    security: ZooKeeperSecurity = ZooKeeperSecurity(),
    checkpoint: Option[String] = None) {

  private val log = LoggerFactory.getLogger(getClass)
  private val paths = ZkPaths(metaStore, runId)
  private val changed = new Object
  private val endpoints = ChildrenCaches(client, paths.endpoints, withData = false)
  private val answerWatch = new AnswerWatch(client, paths, runKey)
  private val exchanges = new HostExchanges
  private val runs = new StoreRuns(client, metaStore, runId)
  // The hosts with an endpoint serving, as the cache's events tell them: with ten thousand
  // hosts, listing the cache at each call cost more than the trigger's news.
  @volatile private var live = Set.empty[String]
  // The last call to look (every host, or those that changed), and how long the last call to
  // every host took: the first quiet trigger after news waits ten times that for news before it
  // calls another. Once a call found nothing, quiet triggers only wait for news (`quiet`).
  private var looks = 0L
  private var lastLookMs = 0L
  private var quiet = false
  // The hosts whose files changed since their last answer's look, until an answer sees it.
  private val owing = mutable.Set.empty[String]
  // Comes back by itself after a session expiry; endpoints end when it is gone for good.
  private val driver = new PersistentNode(
    client,
    CreateMode.EPHEMERAL,
    false,
    paths.driver,
    checkpoint.getOrElse("").getBytes(UTF_8))

  def start(): Unit = {
    if (security.authenticated) {
      val open = ZkClients.restrict(client, Seq(metaStore, paths.runs, paths.offsets), security)
      if (open.contains(paths.offsets)) OffsetBackup.distrust(client, metaStore)
    }
    runs.removeFinished()
    // `reports` made here, so that `status` asks for reports by writing it, never making znodes.
    Seq(
      paths.latches,
      paths.endpoints,
      paths.requests,
      paths.answers,
      paths.reports,
      paths.look,
      paths.changes,
      paths.pulls).foreach(ZkClients.ensure(client, _))
    driver.start()
    if (!driver.waitForInitialCreate(Coordinator.CreateTimeoutMs, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(s"aof: could not create ${paths.driver} in ZooKeeper")
    }
    checkpoint.foreach(refuseAnotherQuery)
    endpoints.getListenable.addListener(new PathChildrenCacheListener {
      override def childEvent(c: CuratorFramework, e: PathChildrenCacheEvent): Unit =
        changed.synchronized {
          val host = Option(e.getData).map(d => ZkPaths.decode(name(d.getPath)))
          e.getType match {
            case PathChildrenCacheEvent.Type.CHILD_ADDED => live ++= host
            case PathChildrenCacheEvent.Type.CHILD_REMOVED => live --= host
            case _ => ()
          }
          changed.notifyAll()
        }
    })
    endpoints.start(PathChildrenCache.StartMode.NORMAL)
    answerWatch.start()
  }

  /** Keeps what `status` shows of the nodes to read; a failure is said, not thrown. */
  def publish(nodes: NodesRead): Unit =
    try {
      val value = NodesValue.encode(nodes.expected.map(_.size), nodes.unread.toSeq)
      ZnodeValues.put(client, paths.nodes, value)
    } catch {
      case e: Exception => log.warn(s"aof: could not write ${paths.nodes} for status: $e")
    }

  def liveHosts(): Set[String] = live

  /**
   * Sends each host whose tracked files changed their request: the files tracked there, and those
   * retired whose copy may still show up (by file id). A host whose standing request asks the
   * same is sent nothing: it answers again by itself when its files change. A host whose endpoint
   * is still starting answers the request it finds when it starts serving. While ZooKeeper cannot
   * be reached nothing is sent, rather than failing the query.
   */
  def ask(
      requests: Map[String, Seq[KnownFile]],
      retired: Map[String, Map[String, KnownFile]] = Map.empty,
      remove: Map[String, Seq[FileKey]] = Map.empty): SentRequests =
    if (!client.getZookeeperClient.isConnected) {
      log.warn("aof: ZooKeeper is not connected; planning this trigger without new metadata")
      new SentRequests(Map.empty, requests.keySet)
    } else {
      val changed = requests.flatMap { case (host, known) =>
        val others = retired.getOrElse(host, Map.empty)
        exchanges.request(host, known, others, remove.getOrElse(host, Nil)).map(host -> _)
      }
      val sent = send(changed)
      new SentRequests(sent, changed.keySet -- sent.keySet)
    }

  /**
   * The hosts' news by the timeout: answers to `asked`, and to the calls to look of the hosts
   * whose files changed since their last answer ([[AnswerRound]]). A host asked that does not
   * answer in time, or could not list its directory, is left out of `files`; its planning waits
   * for a later trigger. A host that cannot take a request as a change (a new endpoint) asks for
   * it in full, which is sent within the same timeout.
   *
   * With `Look.Now`, every endpoint is asked to look and answer ([[ZkPaths.look]]), and all are
   * waited for. With `Look.AfterWait` (a trigger that would plan nothing new), so is the first
   * call after news, once a wait for news of ten times the last such call has passed: so "no
   * new data" holds for every byte written before the trigger began (what Spark's
   * `processAllAvailable` relies on). Once one found nothing, later quiet calls only wait for
   * news, up to [[Coordinator.QuietWaitMs]]: the hosts say when their files change, so an idle
   * fleet costs nothing.
   */
  def answers(asked: SentRequests, timeoutMs: Long, look: Look = Look.Never): Answers = {
    val deadline = System.nanoTime() + timeoutMs * 1000000L
    val round = new AnswerRound(asked.sent.keySet, exchanges, answerWatch, send, pull, owing)
    round.take()
    if (look == Look.AfterWait) {
      val waitMs = if (quiet) Coordinator.QuietWaitMs else lastLookMs * 10
      val until = System.nanoTime() + math.min(waitMs, timeoutMs) * 1000000L
      while (round.taken.isEmpty && System.nanoTime() < until) {
        answerWatch.await((until - System.nanoTime()) / 1000000L)
        round.take()
      }
    }
    val call = look == Look.Now || (look == Look.AfterWait && !quiet)
    val called = System.nanoTime()
    if (call) round.calling(callLook(), liveHosts(), whole = true)
    while (round.waiting && System.nanoTime() < deadline) {
      answerWatch.await((deadline - System.nanoTime()) / 1000000L)
      round.take()
    }
    if (call) lastLookMs = (System.nanoTime() - called) / 1000000L
    if (round.taken.nonEmpty) quiet = false else if (call) quiet = true
    exchanges.complete(round.taken)
    Answers.of(round.taken).copy(heard = round.heard)
  }

  // For the suites: a host's count of changes as this driver last heard it (a watch's event).
  private[aof] def changesHeard(host: String): Long = answerWatch.changeCount(host)

  /** The hosts whose standing request has an answer taken. */
  def current: Set[String] = exchanges.current

  /** Each host's files as its last answer taken said. */
  def latest: Map[String, Seq[FileMeta]] = exchanges.latest

  /** Raises the run's `look` number: every endpoint looks and answers. The number; 0 if not. */
  private def callLook(): Long =
    try {
      looks += 1
      client.setData().forPath(paths.look, looks.toString.getBytes(UTF_8))
      looks
    } catch {
      case e: Exception =>
        log.warn(s"aof: could not ask the endpoints to look; planning with what they said: $e")
        0L
    }

  /** Calls the live ones of `hosts` to look, all at once: the call's number and those called. */
  private def pull(hosts: Set[String]): (Long, Set[String]) = {
    val called = hosts.intersect(live)
    if (called.isEmpty) (0L, called)
    else {
      looks += 1
      val number = looks.toString.getBytes(UTF_8)
      val failed = ZnodeValues.putAll(
        client,
        called.map(h => paths.pull(h) -> number).toMap,
        Coordinator.SendTimeoutMs)
      failed.foreach { case (path, e) => log.warn(s"aof: could not write $path: $e") }
      (looks, called.filterNot(h => failed.contains(paths.pull(h))))
    }
  }

  /** The requests, all written at once; those sent, by host, each now standing for its host. */
  private def send(requests: Map[String, (SentRequest, Request)]): Map[String, SentRequest] = {
    val failed = ZnodeValues.putAll(
      client,
      requests.map { case (host, (_, request)) =>
        paths.request(host) -> Messages.encode(request, runKey)
      },
      Coordinator.SendTimeoutMs)
    requests.flatMap { case (host, (sent, _)) =>
      failed.get(paths.request(host)) match {
        case Some(e) =>
          log.warn(s"aof: could not send the request to $host: $e")
          None
        case None =>
          exchanges.sent(host, sent)
          Some(host -> sent)
      }
    }
  }

  /**
   * Ends the run: endpoints see the driver node go and stop; then the run's znodes go. What is
   * left when ZooKeeper cannot be reached is removed by the next driver on the same store.
   */
  def stop(): Unit =
    try {
      driver.close()
      waitFor(Coordinator.StopWaitMs)(liveHosts().isEmpty)
      ChildrenCaches.close(endpoints)
      answerWatch.close()
      runs.removeWithin(paths.run, Coordinator.StopWaitMs)
    } catch {
      case e: Exception => log.warn(s"aof: run $runId not fully removed from ZooKeeper: $e")
    }

  private def waitFor(timeoutMs: Long)(condition: => Boolean): Boolean = {
    val deadline = System.nanoTime() + timeoutMs * 1000000L
    changed.synchronized {
      var ok = condition
      while (!ok && System.nanoTime() < deadline) {
        changed.wait(math.max(1L, (deadline - System.nanoTime()) / 1000000L))
        ok = condition
      }
      ok
    }
  }

  /**
   * Checked once this run's driver znode exists, so that of two queries starting together at
   * least the second is refused.
   */
  private def refuseAnotherQuery(own: String): Unit =
    runs.otherQuery(own).foreach { other =>
      driver.close()
      throw new IllegalStateException(other.refusal(metaStore))
    }

  private def name(path: String): String = path.substring(path.lastIndexOf('/') + 1)
}

object Coordinator {

  /** How long the requests of a trigger may take to be written, all together. */
  val SendTimeoutMs: Long = 30000L

  /** How long a run waits for its driver's znode to be made, as it starts. */
  private val CreateTimeoutMs = 30000L

  /**
   * How long a stop waits for the endpoints to see the driver go, and then for the run's znodes
   * to go: each, so that a query stops in seconds even with ZooKeeper out of reach.
   */
  private val StopWaitMs = 10000L

  /**
   * The longest a quiet trigger waits for news once a look found nothing: news ends the wait at
   * once, so it bounds only how often an idle query triggers.
   */
  val QuietWaitMs: Long = 1000L
}
