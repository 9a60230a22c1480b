package com.hx.spark.sql.connector.aof.endpoint

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Executors, TimeUnit}

import scala.util.{Failure, Success, Try}

import org.apache.curator.framework.recipes.cache.{NodeCache, NodeCacheListener}
import org.apache.curator.framework.recipes.leader.{LeaderLatch, LeaderLatchListener}
import org.apache.curator.framework.recipes.nodes.PersistentNode
import org.apache.zookeeper.CreateMode
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.files.{DirectoryScanner, FileMeta, UnlistedDirectory}
import com.hx.spark.sql.connector.aof.metrics.{ExecutorReads, Gauges, MetricDefinitions => M}
import com.hx.spark.sql.connector.aof.protocol.{
  DriverExchange,
  Messages,
  Request,
  Response,
  ZkPaths,
  ZnodeValues
}
import com.hx.spark.sql.connector.aof.zookeeper.{WatchedZnode, ZkClients}

/**
 * A node's daemon for one query run: answers the driver's requests with what its directory holds.
 * All endpoints of a host join one leader latch; the leader registers and serves, the others
 * stand by and take over when it goes. It ends itself when the run's driver node disappears.
 *
 * Every ZooKeeper event is handed to one worker thread, so answers never run concurrently and
 * closing never happens on one of Curator's own threads.
 */
final class NodeEndpoint(spec: EndpointSpec, host: String, onClosed: () => Unit) {
  private val log = LoggerFactory.getLogger(getClass)
  private val paths = ZkPaths(spec.metaStore, spec.runId)
  private val worker = Executors.newSingleThreadExecutor { r =>
    val t = new Thread(r, s"aof-endpoint-$host")
    t.setDaemon(true)
    t
  }
  private val client = ZkClients.open(spec.zk, spec.metaStore)
  private val scanner = new DirectoryScanner(
    spec.files,
    spec.md5SampleLength,
    spec.records,
    batchCuts = spec.batchCuts,
    identity = spec.identity,
    ignoreOlderMs = spec.ignoreOlderMs,
    ending = spec.ending,
    cleanup = spec.cleanup
  )
  private val me = ManagementFactory.getRuntimeMXBean.getName
  private val driver = new NodeCache(client, paths.driver)
  private val requests = new WatchedZnode(client, paths.request(host), () => submit(answer()))
  private val latch = new LeaderLatch(client, paths.latch(host), me)
  private[endpoint] val report =
    new EndpointReport(client, paths.report(host), paths.reports, spec.runKey, host)
  @volatile private var registration: Option[PersistentNode] = None
  private var lastAnswered = ""
  private val exchange = new DriverExchange
  private var lastRejected = ""
  private var lastIgnored = 0
  private var closed = false
  // What an operator watches of this endpoint (the gauges), written by its worker only.
  @volatile private var filesWatched = 0L
  @volatile private var lookMs = 0L
  @volatile private var looks = 0L
  private val gauges = Gauges.group(
    s"endpoint.${Gauges.part(spec.metaStore)}",
    () =>
      Map(
        M.FilesWatched.name -> filesWatched,
        M.LookMs.name -> lookMs,
        M.Looks.name -> looks,
        M.Serving.name -> (if (registration.isEmpty) 0L else 1L),
        M.LinesRead.name -> ExecutorReads.lines(spec.metaStore),
        M.BytesRead.name -> ExecutorReads.bytes(spec.metaStore)
      )
  )

  def start(): Unit = {
    gauges.sync(
      Set(M.FilesWatched, M.LookMs, M.Looks, M.Serving, M.LinesRead, M.BytesRead).map(_.name))
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
    latch.start()
  }

  private def submit(task: => Unit): Unit =
    if (!worker.isShutdown) {
      worker.execute { () =>
        try if (!closed) task
        catch { case e: Exception => log.warn(s"aof: endpoint on $host: $e", e) }
      }
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
    answer()
  }

  private def standBy(): Unit = {
    registration.foreach(_.close())
    registration = None
    report.forget()
  }

  private def answer(): Unit = {
    val data =
      if (registration.isEmpty) None
      else
        requests.current.flatMap(ZnodeValues.resolve(client, paths.request(host), _))
    if (data.isEmpty) return
    Try(Messages.decodeRequest(data.get, spec.runKey)) match {
      case Failure(e) =>
        val what = s"$e"
        if (what != lastRejected) log.warn(s"aof: endpoint on $host ignores a request: $what")
        lastRejected = what
      case Success(request) if request.id != lastAnswered =>
        val response = Messages.encode(respond(request), spec.runKey)
        ZnodeValues.put(client, paths.response(host), response)
        lastAnswered = request.id
      case Success(_) => ()
    }
  }

  /** In full to a request in full, else as the change from the answer to the request's base. */
  private def respond(request: Request): Response = exchange.known(request) match {
    case None => Response(request.id, Nil, needsFull = true)
    case Some((known, before)) =>
      val began = System.nanoTime()
      val (files, unlisted) =
        try scanner.scan(known, request.retired, request.remove.toSet) -> None
        catch { case u: UnlistedDirectory => (Seq.empty[FileMeta], Some(u.reason)) }
      filesWatched = files.size.toLong
      looks += 1
      val ignored = if (unlisted.isEmpty) scanner.ignored else 0
      val absent = files.isEmpty && unlisted.isEmpty && !scanner.directoryExists
      val retired = request.retired.keys.toSeq.sorted
      val removed = if (unlisted.isEmpty) scanner.removedByLastScan else Nil
      val full = Response(
        request.id,
        files,
        absent = absent,
        retired = retired,
        ignored = ignored,
        removed = removed)
      val (response, unchanged) = exchange.answer(request, known, before, files, full)
      // An idle host's list is not written again each second.
      if (!unchanged || ignored != lastIgnored) {
        report.publish(Response(request.id, files, unlisted = unlisted, ignored = ignored))
      }
      lastIgnored = ignored
      lookMs = (System.nanoTime() - began) / 1000000L
      if (unlisted.nonEmpty) Response(request.id, Nil, unlisted = unlisted) else response
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
      driver.close()
      report.close()
      client.close()
    } finally {
      worker.shutdown()
      onClosed()
      log.info(s"aof: endpoint on $host for run ${spec.runId} stopped")
    }
  }

  /** Stops now, from any thread; waits a little for the worker to finish. */
  def shutdown(): Unit = {
    submit(close())
    worker.awaitTermination(10, TimeUnit.SECONDS)
  }
}
