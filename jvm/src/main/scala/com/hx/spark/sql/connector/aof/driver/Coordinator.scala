package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
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
import org.apache.zookeeper.{CreateMode, KeeperException, ZKUtil}
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.config.ZooKeeperSecurity
import com.hx.spark.sql.connector.aof.files.{FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.plan.Looked
import com.hx.spark.sql.connector.aof.protocol.{
  Delta,
  Exchange,
  Messages,
  NodesValue,
  Request,
  Response,
  ZkPaths,
  ZnodeValues
}
import com.hx.spark.sql.connector.aof.zookeeper.{ChildrenCaches, ZkClients}

/**
 * The driver's side of the ZooKeeper exchange for one query run: owns the run's znodes, knows
 * which hosts have a live endpoint, and gathers the hosts' answers to a request within a timeout.
 * Waiting is driven by ZooKeeper watches, not by polling.
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
  // What one exchange leaves for the next: each host's last response decoded, and its last
  // complete exchange. `ask` and `answers` hold the coordinator's lock, so one exchange runs at a
  // time whichever threads call them.
  private val lastDecoded = mutable.Map.empty[String, (Long, Option[Response])]
  private val held = mutable.Map.empty[String, Exchange]
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
    removeFinishedRuns()
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
      retired: Map[String, Map[String, KnownFile]] = Map.empty): Asked = synchronized {
    if (!client.getZookeeperClient.isConnected) {
      log.warn("aof: ZooKeeper is not connected; planning this trigger without new metadata")
      new Asked(Map.empty)
    } else {
      new Asked(send(requests.map { case (host, known) =>
        host -> Question(known, retired.getOrElse(host, Map.empty), held.get(host))
      }))
    }
  }

  /**
   * The answers to `asked` that arrive within the timeout. A host that does not answer in time,
   * or could not list its directory, is left out of `files`; its planning waits for a later
   * trigger. A host that cannot answer with a change (a new endpoint) asks for the request in
   * full, which is sent within the same timeout.
   */
  def answers(asked: Asked, timeoutMs: Long): Answers = synchronized {
    val deadline = System.nanoTime() + timeoutMs * 1000000L
    var waiting = asked.sent
    var answers = Map.empty[String, Seq[FileMeta]]
    var unlisted = Map.empty[String, String]
    var absent = Set.empty[String]
    var lookedFor = Map.empty[String, Looked]
    var ignored = Map.empty[String, Int]
    var looked = false // once at least: what came while the caller waited for more is taken
    while (waiting.nonEmpty && (!looked || System.nanoTime() < deadline)) {
      looked = true
      var arrived = Map.empty[String, Response]
      waitFor((deadline - System.nanoTime()) / 1000000L) {
        arrived = responsesTo(waiting)
        arrived.nonEmpty
      }
      arrived.foreach { case (host, response) =>
        val sent = waiting(host)
        waiting -= host
        (response.unlisted, answered(sent, response)) match {
          case (Some(why), _) =>
            unlisted += host -> why
            held(host) = Exchange(sent.id, sent.known, Nil)
          case (None, Some(files)) =>
            answers += host -> files
            lookedFor += host -> Looked(sent.id, response.retired.toSet)
            ignored += host -> response.ignored
            if (response.absent) absent += host
            held(host) = Exchange(sent.id, sent.known, files)
          case (None, None) =>
            log.info(s"aof: $host asks for the request in full (a new endpoint, or a late answer)")
            waiting ++= send(Map(host -> Question(sent.known, sent.retired, None)))
        }
      }
    }
    Answers(answers, unlisted, absent, lookedFor, ignored)
  }

  /**
   * Each host's request, in full or as the change from the exchange given, all written at once;
   * those sent, by host.
   */
  private def send(requests: Map[String, Question]): Map[String, Sent] = {
    val sent = requests.map { case (host, Question(known, retired, base)) =>
      val id = UUID.randomUUID().toString
      val change = base.flatMap(b => Delta.between(b.known, known)(_.key).map(b -> _))
      val request = change.fold(Request(id, known, retired = retired)) { case (b, d) =>
        Request(id, d.changed, Some(b.id), d.removed, retired)
      }
      host -> ((Sent(id, known, retired, change.map(_._1)), Messages.encode(request, runKey)))
    }
    val failed = ZnodeValues.putAll(
      client,
      sent.map { case (host, (_, data)) => paths.request(host) -> data },
      Coordinator.SendTimeoutMs)
    sent.flatMap { case (host, (request, _)) =>
      failed.get(paths.request(host)) match {
        case Some(e) =>
          log.warn(s"aof: could not send the request to $host: $e")
          None
        case None => Some(host -> request)
      }
    }
  }

  /** The host's files in full, or None when it needs the request in full. */
  private def answered(sent: Sent, response: Response): Option[Seq[FileMeta]] =
    (response.base, sent.base) match {
      case _ if response.needsFull => None
      case (None, _) => Some(response.files)
      case (Some(b), Some(e)) if b == e.id =>
        Some(Delta.applied(e.files, Delta(response.files, response.gone))(_.key))
      case _ => None
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
        if (!removed(paths.run)) Thread.sleep(50) // a stand-by endpoint is closing its latch
      }
    } catch {
      case e: Exception => log.warn(s"aof: run $runId not fully removed from ZooKeeper: $e")
    }

  private def responsesTo(waiting: Map[String, Sent]): Map[String, Response] =
    responses.getCurrentData.asScala.flatMap { d =>
      val host = ZkPaths.decode(name(d.getPath))
      waiting.get(host) match {
        case Some(sent) => decoded(host, d).filter(_.id == sent.id).map(host -> _)
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
   * least the second is refused. A run of the same checkpoint is the query itself, restarted
   * before ZooKeeper ended its crashed run.
   */
  private def refuseAnotherQuery(own: String): Unit = {
    val others = otherRuns().flatMap { run =>
      try Some(new String(client.getData.forPath(ZkPaths(metaStore, run).driver), UTF_8))
      catch { case _: KeeperException.NoNodeException => None }
    }
    others.find(_ != own).foreach { other =>
      driver.close()
      val which = if (other.isEmpty) "" else s" (checkpoint $other)"
      throw new IllegalStateException(
        s"aof: another query$which is running with meta.store '$metaStore'. Two running queries " +
          "on one meta.store would share its offset backup: give this one its own, " +
          s""".option("meta.store", "$metaStore-2") for example. If that query's driver died, """ +
          "its run ends within zookeeper.session.timeout.")
    }
  }

  private def otherRuns(): Seq[String] =
    try client.getChildren.forPath(paths.runs).asScala.filter(_ != runId).toSeq
    catch { case _: KeeperException.NoNodeException => Nil }

  /** Runs of earlier drivers that died without cleaning up: their driver node is gone. */
  private def removeFinishedRuns(): Unit = {
    otherRuns().foreach { run =>
      val other = ZkPaths(metaStore, run)
      if (client.checkExists().forPath(other.driver) == null) {
        log.info(s"aof: removing the znodes of finished run $run")
        try if (!removed(other.run)) log.debug(s"aof: run $run not removed yet")
        catch { case e: KeeperException => log.debug(s"aof: run $run not removed yet: $e") }
      }
    }
  }

  /**
   * Deletes a run's znodes in one multi-op, where deleting a znode at a time waits for each; false
   * when one changed meanwhile (a stand-by endpoint still closing, say).
   */
  private def removed(run: String): Boolean =
    try ZKUtil.deleteRecursive(client.getZookeeperClient.getZooKeeper, run, 1000)
    catch { case _: KeeperException.NoNodeException => false }

  private def name(path: String): String = path.substring(path.lastIndexOf('/') + 1)
}

object Coordinator {

  /** How long the requests of a trigger may take to be written, all together. */
  val SendTimeoutMs: Long = 30000L
}

/** The requests of one [[Coordinator.ask]], whose answers are awaited. */
final class Asked private[driver] (private[driver] val sent: Map[String, Sent]) {
  def hosts: Set[String] = sent.keySet

  def ++(other: Asked): Asked = new Asked(sent ++ other.sent)
}

/** What to ask a host: its files and retired files, and the exchange to send the change from. */
private final case class Question(
    known: Seq[KnownFile],
    retired: Map[String, KnownFile],
    base: Option[Exchange])

/**
 * A request on its way: its id, the files it named in full, its retired files, the exchange it
 * is a change from.
 */
private final case class Sent(
    id: String,
    known: Seq[KnownFile],
    retired: Map[String, KnownFile],
    base: Option[Exchange])
