package com.hx.spark.sql.connector.aof.endpoint

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ScheduledExecutorService

import scala.util.{Failure, Success, Try}

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{NodeCache, NodeCacheListener}
import org.apache.curator.framework.recipes.leader.{LeaderLatch, LeaderLatchListener}
import org.apache.curator.framework.recipes.nodes.PersistentNode
import org.apache.zookeeper.CreateMode
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.identity.KnownFile
import com.hx.spark.sql.connector.aof.protocol.{
  Answer, DriverExchange, Exchange, Messages, Request, ZkPaths, ZnodeValues
}
import com.hx.spark.sql.connector.aof.zookeeper.{WatchedZnode, ZkClients}

/**
 * A node's daemon for one query run: answers the driver's requests with what its directory holds.
 * All endpoints of a host join one leader latch; the leader registers and serves, the others
 * stand by and take over when it goes. It ends itself when the run's driver node disappears.
 *
 * A request stands until the next: the endpoint answers it when it comes, and again when the
 * driver calls for a look. Between calls it only notes that its files changed ([[LookSchedule]]:
 * a watch's event, the files gone quiet, or a look due every [[LookTimes.FallbackMs]]): the
 * first change after a look raises the host's count of changes ([[ZkPaths.changed]]), one small
 * write, and the driver calls this host to look ([[ZkPaths.pull]]) at its next trigger. So a file
 * written all the time costs a look a trigger, not a look a write, and an idle node costs the
 * driver and ZooKeeper nothing. When the driver raises the run's `look` number, every endpoint
 * looks at once and answers, if only to say it looked.
 *
 * Every ZooKeeper event and every look is handed to one worker ([[EndpointWorker]]), so answers
 * never run concurrently and closing never happens on one of Curator's own threads.
 *
 * @param sharedClient  a ZooKeeper client the caller owns, for simulated nodes many to a JVM (the
 *                      fleet benchmark); else the endpoint's own
 * @param sharedThreads a pool its worker and report writer run on, for the same simulated nodes;
 *                      else a thread each of their own
 */
final class NodeEndpoint(
    spec: EndpointSpec,
    host: String,
    onClosed: () => Unit,
    sharedClient: Option[CuratorFramework] = None,
    sharedThreads: Option[ScheduledExecutorService] = None) {
  private val log = LoggerFactory.getLogger(getClass)
  private val paths = ZkPaths(spec.metaStore, spec.runId)
  private val worker = new EndpointWorker(s"aof-endpoint-$host", sharedThreads)
  // A client of its own, but for simulated nodes, many to a JVM (the fleet benchmark).
  private val client = sharedClient.getOrElse(ZkClients.open(spec.zk, spec.metaStore))
  private val looks = new EndpointLooks(spec)
  private val me = ManagementFactory.getRuntimeMXBean.getName
  private val driver = new NodeCache(client, paths.driver)
  private val requests = new WatchedZnode(client, paths.request(host), () => submit(answer()))
  private val lookCalls: WatchedZnode =
    new WatchedZnode(client, paths.look, () => submit(called(lookCalls)))
  private val pulls: WatchedZnode =
    new WatchedZnode(client, paths.pull(host), () => submit(called(pulls)))
  private val latch = new LeaderLatch(client, paths.latch(host), me)
  private[endpoint] val report =
    new EndpointReport(
      client,
      paths.report(host),
      paths.reports,
      spec.runKey,
      host,
      threads = sharedThreads)
  @volatile private var registration: Option[PersistentNode] = None
  private var lastAnswered = ""
  private val exchange = new DriverExchange
  private var lastRejected = ""
  private var closed = false
  // Each call's last number answered, which answers carry; and the last answer written: written
  // again to say it looked.
  private var callsSeen = Map.empty[WatchedZnode, Long]
  private var lastWritten: Option[Answer] = None
  private val changeCount = new ChangeCount
  private val schedule = new LookSchedule(
    spec.files,
    looks.changedDirs,
    (task, delayMs) => submit(task(), delayMs),
    () => noteChange(),
    () => { requests.check(); lookCalls.check(); pulls.check() },
    () => looks.wholeLookMs
  )
  private val gauges = new EndpointGauges(spec.metaStore, looks, () => registration.nonEmpty)

  /** The looks so far: each lists, stats and describes the files. */
  private[endpoint] def looksSoFar: Long = looks.looks

  /** The looks so far that listed every directory, not only those a watch heard change. */
  private[endpoint] def wholeLooksSoFar: Long = looks.wholeLooks

  /** Whether a change's note once the files went quiet is still to come. */
  private[endpoint] def settling: Boolean = schedule.settling

  def start(): Unit = {
    gauges.start()
    report.start()
    driver.getListenable.addListener(new NodeCacheListener {
      override def nodeChanged(): Unit = if (driver.getCurrentData == null) submit(close())
    })
    driver.start(true)
    if (driver.getCurrentData == null) {
      log.info(s"aof: run ${spec.runId} is over before its endpoint on $host started")
      submit(close())
      return
    }
    latch.addListener(new LeaderLatchListener {
      override def isLeader(): Unit = submit(serve())
      override def notLeader(): Unit = submit(standBy())
    })
    requests.start()
    lookCalls.start()
    pulls.start()
    latch.start()
  }

  private def submit(task: => Unit, delayMs: Long = 0L): Unit =
    if (!worker.isShutdown) {
      worker.schedule(
        { () =>
          try if (!closed) task
          catch { case e: Exception => log.warn(s"aof: endpoint on $host: $e", e) }
        }: Runnable,
        delayMs)
    }

  private def serve(): Unit = {
    // Comes back by itself after a session expiry, so a reconnected host is live again.
    val node = new PersistentNode(
      client,
      CreateMode.EPHEMERAL,
      false,
      paths.endpoint(host),
      me.getBytes(UTF_8))
    node.start()
    registration = Some(node)
    log.info(s"aof: endpoint $me serves ${spec.files} on $host for run ${spec.runId}")
    // First: what changed while another served, or none did, is unknown, so the start's look is
    // whole, and a change from now on is heard.
    schedule.start()
    answer()
  }

  private def standBy(): Unit = {
    registration.foreach(_.close())
    registration = None
    schedule.stop()
    lastWritten = None
    report.forget()
  }

  private def answer(): Unit = {
    val data =
      if (registration.isEmpty) None
      else
        requests.current.flatMap(ZnodeValues.resolve(client, paths.request(host), _))
    if (data.isEmpty) return
    Try(Messages.decodeRequest(data.get, spec.runKey)) match {
      case Failure(e) => reject(s"aof: endpoint on $host ignores a request: $e")
      case Success(request) if request.id != lastAnswered && exchange.takes(request) =>
        answerTo(request).foreach(write)
        lastAnswered = request.id
      case Success(request) if request.id != lastAnswered =>
        reject(
          s"aof: endpoint on $host refuses request ${request.id}: it is older (${request.seq}) " +
            s"than ${exchange.seq}, the one it answered last, so someone wrote it back to " +
            "ZooKeeper. It goes on answering the newer one.")
      case Success(_) => ()
    }
  }

  /** Said once while the same request stands: its watch may fire again, and a look reads it. */
  private def reject(said: String): Unit = {
    if (said != lastRejected) log.warn(said)
    lastRejected = said
  }

  /** The standing request looked at again: answered again only when what it says changed. */
  private def lookAgain(): Boolean = registration.nonEmpty && (exchange.standing match {
    case Some((request, known, before)) =>
      val answer = look(request, known, before)
      answer.foreach(write)
      answer.nonEmpty
    case None => false
  })

  /**
   * The driver called for a look (`look` every endpoint, `pull` this one): this one answers, if
   * only to say it looked, at each new number, greater or not (one written by anybody else
   * makes it look once, and holds nothing back). A request whose change its watch missed is read
   * then too, and answered.
   */
  private def called(call: WatchedZnode): Unit = {
    requests.check()
    val number = call.current.flatMap(b => Try(new String(b, UTF_8).trim.toLong).toOption)
    number.filter(n => !callsSeen.get(call).contains(n)).foreach { n =>
      // Called right after a change (a host's count raised, the driver waiting for it): the
      // look waits until the change is LookTimes.SettleMs old, as a rotation takes.
      val settling = if (call eq pulls) changeCount.settling(nowMs, LookTimes.SettleMs) else 0L
      if (settling > 0) submit(called(call), settling)
      else {
        callsSeen += call -> n
        // A look at every host covers every byte written before it was called, even one whose
        // watch event is still on its way (what "no new data" means to Spark): it is whole.
        if (call eq lookCalls) looks.changedDirs.all()
        if (!lookAgain()) lastWritten.foreach(write)
      }
    }
  }

  private def nowMs: Long = System.nanoTime() / 1000000L

  /**
   * The files changed since the last look: the driver hears it once, by the count of changes,
   * until a look sees them. A count not written is written again at the next change.
   */
  private def noteChange(): Unit = if (registration.nonEmpty)
    changeCount.note(nowMs).foreach { count =>
      try ZnodeValues.put(client, paths.changed(host), count.toString.getBytes(UTF_8))
      catch {
        case e: Exception =>
          changeCount.unwritten()
          schedule.rearm() // the next change says it again
          log.info(s"aof: endpoint on $host could not say its files changed; says it again: $e")
      }
    }

  private def write(answer: Answer): Unit = {
    val sent =
      answer.copy(
        look = callsSeen.getOrElse(lookCalls, 0L),
        pulled = callsSeen.getOrElse(pulls, 0L),
        seq = exchange.seq,
        changes = changeCount.seenByLastLook)
    ZnodeValues.put(client, paths.answer(host), Messages.encode(sent, spec.runKey))
    lastWritten = Some(sent)
  }

  /** In full to a request in full, else as the change from the answer the request is based on. */
  private def answerTo(request: Request): Option[Answer] = exchange.known(request) match {
    case None => Some(Answer(request.id, Nil, needsFull = true))
    case Some((known, before)) => look(request, known, before)
  }

  private def look(
      request: Request,
      known: Seq[KnownFile],
      before: Option[Exchange]): Option[Answer] = {
    schedule.rearm()
    changeCount.looking()
    val wholeBefore = looks.wholeLooks
    val answer = looks.look(request, known) { (full, settlesIn) =>
      settlesIn.foreach(schedule.settlesIn)
      val answer = exchange.answer(request, known, before, full)
      // An idle host's list is not written again.
      if (answer.nonEmpty) report.publish(full.copy(absent = false, retired = Nil, removed = Nil))
      answer
    }
    if (looks.wholeLooks > wholeBefore) schedule.lookedWhole(looks.wholeLookMs)
    answer
  }

  // Whatever fails on the way, the endpoint leaves its registry: one left there would make every
  // later start for the run on this JVM a no-op, and the host would stay without an endpoint.
  private def close(): Unit = if (!closed) {
    closed = true
    try {
      gauges.close()
      standBy()
      // The latch is left to the client's close, which ends the session and so removes the
      // latch's node. Closed first, the latch would race its own requests still on the way: it
      // checks the leadership of a node it has just dropped, and logs an error as if lost.
      requests.close()
      lookCalls.close()
      pulls.close()
      driver.close()
      report.close()
      if (sharedClient.isEmpty) client.close() else latch.close()
    } finally {
      worker.shutdown()
      onClosed()
      log.info(s"aof: endpoint on $host for run ${spec.runId} stopped")
    }
  }

  /** Stops now, from any thread; waits a little for the worker to finish. */
  def shutdown(): Unit = {
    submit(close())
    worker.awaitTermination(10000L)
  }
}
