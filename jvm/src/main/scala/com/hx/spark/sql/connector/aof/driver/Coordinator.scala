package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.TimeUnit

import scala.collection.JavaConverters._
import scala.collection.mutable
import scala.util.{Failure, Success, Try}

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{
  ChildData,
  PathChildrenCache,
  PathChildrenCacheEvent,
  PathChildrenCacheListener
}
import org.apache.curator.framework.recipes.nodes.PersistentNode
import org.apache.zookeeper.CreateMode
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.config.ZooKeeperSecurity
import com.hx.spark.sql.connector.aof.files.{FileKey, KnownFile}
import com.hx.spark.sql.connector.aof.protocol.{
  HostExchanges,
  Messages,
  NodesValue,
  Reply,
  Request,
  Response,
  SentRequest,
  ZkPaths,
  ZnodeValues
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
  private val responses = ChildrenCaches(client, paths.responses, withData = true)
  private val exchanges = new HostExchanges
  private val runs = new StoreRuns(client, metaStore, runId)
  // Each host's last response decoded, by its version; used under `changed`'s lock.
  private val lastDecoded = mutable.Map.empty[String, (Long, Option[Response])]
  // Comes back by itself after a session expiry; endpoints end when it is gone for good.
  private val driver = new PersistentNode(
    client,
    CreateMode.EPHEMERAL,
    false,
    paths.driver,
    checkpoint.getOrElse("").getBytes(UTF_8))

  def start(): Unit = {
    if (security.authenticated) {
      ZkClients.restrict(client, Seq(metaStore, paths.runs, paths.offsets), security)
    }
    runs.removeFinished()
    // `reports` made here, so that `status` asks for reports by writing it, never making znodes.
    Seq(paths.latches, paths.endpoints, paths.requests, paths.responses, paths.reports)
      .foreach(ZkClients.ensure(client, _))
    driver.start()
    if (!driver.waitForInitialCreate(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(s"aof: could not create ${paths.driver} in ZooKeeper")
    }
    checkpoint.foreach(refuseAnotherQuery)
    val wake = new PathChildrenCacheListener {
      override def childEvent(c: CuratorFramework, e: PathChildrenCacheEvent): Unit =
        changed.synchronized(changed.notifyAll())
    }
    endpoints.getListenable.addListener(wake)
    responses.getListenable.addListener(wake)
    // Not waited for: the run is new, so both start empty; what comes later wakes `waitFor`.
    endpoints.start(PathChildrenCache.StartMode.NORMAL)
    responses.start(PathChildrenCache.StartMode.NORMAL)
  }

  /** Keeps what `status` shows of the nodes to read; a failure is said, not thrown. */
  def publish(nodes: NodesRead): Unit =
    try {
      val value = NodesValue.encode(nodes.expected.map(_.size), nodes.unread.toSeq)
      ZnodeValues.put(client, paths.nodes, value)
    } catch {
      case e: Exception => log.warn(s"aof: could not write ${paths.nodes} for status: $e")
    }

  def liveHosts(): Set[String] =
    endpoints.getCurrentData.asScala.map(d => ZkPaths.decode(name(d.getPath))).toSet

  /**
   * Sends each host its request: the files tracked there, and those retired whose copy may still
   * show up (by file id). A host whose endpoint is still starting answers the request it finds
   * when it starts serving. A host that answered the last request gets the change from it. While
   * ZooKeeper cannot be reached nothing is sent, rather than failing the query.
   */
  def ask(
      requests: Map[String, Seq[KnownFile]],
      retired: Map[String, Map[String, KnownFile]] = Map.empty,
      remove: Map[String, Seq[FileKey]] = Map.empty): SentRequests =
    if (!client.getZookeeperClient.isConnected) {
      log.warn("aof: ZooKeeper is not connected; planning this trigger without new metadata")
      new SentRequests(Map.empty)
    } else {
      new SentRequests(send(requests.map { case (host, known) =>
        val others = retired.getOrElse(host, Map.empty)
        host -> exchanges.request(host, known, others, remove.getOrElse(host, Nil))
      }))
    }

  /**
   * The answers to `asked` that arrive within the timeout. A host that does not answer in time,
   * or could not list its directory, is left out of `files`; its planning waits for a later
   * trigger. A host that cannot answer with a change (a new endpoint) asks for the request in
   * full, which is sent within the same timeout.
   */
  def answers(asked: SentRequests, timeoutMs: Long): Answers = {
    val replies = awaitReplies(asked.sent, System.nanoTime() + timeoutMs * 1000000L)
    exchanges.complete(replies.map { case (host, (sent, _, reply)) => host -> (sent -> reply) })
    Answers.of(replies)
  }

  /** Each host's reply by the deadline, with its request and response; none for the others. */
  private def awaitReplies(
      asked: Map[String, SentRequest],
      deadline: Long): Map[String, (SentRequest, Response, Reply)] = {
    var waiting = asked
    var replies = Map.empty[String, (SentRequest, Response, Reply)]
    var looked = false // once at least: what came while the caller waited for more is taken
    while (waiting.nonEmpty && (!looked || System.nanoTime() < deadline)) {
      looked = true
      val arrived = arrivals(waiting, deadline)
      waiting --= arrived.keys
      arrived.foreach { case (host, (sent, response)) =>
        exchanges.read(sent, response) match {
          case Reply.NeedsFull =>
            log.info(s"aof: $host asks for the request in full (a new endpoint, or a late answer)")
            waiting ++= send(Map(host -> exchanges.inFull(sent)))
          case reply => replies += host -> ((sent, response, reply))
        }
      }
    }
    replies
  }

  /** The responses to `waiting` there by the deadline: at least one, unless none came. */
  private def arrivals(
      waiting: Map[String, SentRequest],
      deadline: Long): Map[String, (SentRequest, Response)] = {
    var arrived = Map.empty[String, (SentRequest, Response)]
    waitFor((deadline - System.nanoTime()) / 1000000L) {
      arrived = responsesTo(waiting)
      arrived.nonEmpty
    }
    arrived
  }

  /** The requests, all written at once; those sent, by host. */
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
        case None => Some(host -> sent)
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
      waitFor(10000)(liveHosts().isEmpty)
      ChildrenCaches.close(endpoints)
      ChildrenCaches.close(responses)
      val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
      while (System.nanoTime() < deadline && client.checkExists().forPath(paths.run) != null) {
        if (!runs.removed(paths.run)) Thread.sleep(50) // a stand-by endpoint is closing its latch
      }
    } catch {
      case e: Exception => log.warn(s"aof: run $runId not fully removed from ZooKeeper: $e")
    }

  private def responsesTo(waiting: Map[String, SentRequest]): Map[String, (SentRequest, Response)] =
    responses.getCurrentData.asScala.flatMap { d =>
      val host = ZkPaths.decode(name(d.getPath))
      waiting.get(host) match {
        case Some(sent) => decoded(host, d).filter(_.id == sent.id).map(r => host -> (sent -> r))
        case _ => None
      }
    }.toMap

  /**
   * Each version of a host's response is decoded once: the answer to the previous request is
   * still there when a trigger starts waiting, and with ten thousand files decoding it again
   * costs as much as the answer awaited.
   */
  private def decoded(host: String, d: ChildData): Option[Response] = {
    val version = d.getStat.getMzxid
    lastDecoded.get(host) match {
      case Some((v, response)) if v == version => response
      case _ =>
        // Whatever else wrote there, a response that does not decode is no answer. One whose
        // parts are gone is none either: it was replaced, and its next version is read in turn.
        val value = Try(ZnodeValues.resolve(client, d.getPath, d.getData))
        val response = value.map(_.map(Messages.decodeResponse(_, runKey))) match {
          case Success(r) => r
          case Failure(e) =>
            log.warn(s"aof: unreadable response from $host, taken as no answer: $e")
            None
        }
        lastDecoded(host) = version -> response
        response
    }
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
      val which = if (other.isEmpty) "" else s" (checkpoint $other)"
      throw new IllegalStateException(
        s"aof: another query$which is running with meta.store '$metaStore'. Two running queries " +
          "on one meta.store would share its offset backup: give this one its own, " +
          s""".option("meta.store", "$metaStore-2") for example. If that query's driver died, """ +
          "its run ends within zookeeper.session.timeout.")
    }

  private def name(path: String): String = path.substring(path.lastIndexOf('/') + 1)
}

object Coordinator {

  /** How long the requests of a trigger may take to be written, all together. */
  val SendTimeoutMs: Long = 30000L
}

/** The requests of one [[Coordinator.ask]], whose answers are awaited. */
final class SentRequests private[driver] (private[driver] val sent: Map[String, SentRequest]) {
  def hosts: Set[String] = sent.keySet

  def ++(other: SentRequests): SentRequests = new SentRequests(sent ++ other.sent)
}
