package com.hx.spark.sql.connector.aof.endpoint

import java.time.Clock
import java.util.concurrent.ScheduledExecutorService

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{NodeCache, NodeCacheListener}
import org.apache.zookeeper.KeeperException
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{Answer, Messages, ZnodeValues}

/**
 * A node's files in full, for `pyspark-aof status`, written only while someone looks: answers
 * carry only what changed, and every active node writing its whole list each second would be
 * most of what ZooKeeper carries (a node of 10,000 files: 370 KB a second, 200 times its
 * answers). `status` asks by writing the run's reports znode (`askPath`); every endpoint then
 * writes its latest list at once, and again at most once a second while it changes, for
 * `wantedMs`. Written by a worker of its own ([[EndpointWorker]]), so an answer never waits for
 * it.
 *
 * @param clock what "for `wantedMs`" and "at most once a second" are measured with
 * @param threads a pool to write on, shared by simulated nodes (the fleet benchmark); else a
 *                thread of its own
 */
final class EndpointReport(
    client: CuratorFramework,
    path: String,
    askPath: String,
    runKey: String,
    host: String,
    wantedMs: Long = 60000L,
    clock: Clock = Clock.systemUTC(),
    threads: Option[ScheduledExecutorService] = None) {
  private val log = LoggerFactory.getLogger(getClass)
  private val IntervalMs = 1000L
  private val writer = new EndpointWorker(s"aof-endpoint-report-$host", threads)
  private val asks = new NodeCache(client, askPath)
  // The latest answer in full: what a write writes, whenever it runs.
  private var current: Option[Answer] = None
  private var scheduled = false
  private var writesScheduled = 0L
  private var wantedUntilMs = clock.millis()
  @volatile private var lastWrittenMs = clock.millis() - IntervalMs

  asks.getListenable.addListener(new NodeCacheListener {
    override def nodeChanged(): Unit = if (asks.getCurrentData != null) asked()
  })

  /**
   * Reads the ask there now: done before the endpoint answers, so that an ask made before it
   * started is not taken for a new one. Not in the constructor: the endpoint is made under its
   * registry's lock, and a launch task killed there would leave its client open.
   */
  def start(): Unit = asks.start(true)

  /** Publishes `answer` (in full) within a second, while asked; a later one replaces it. */
  def publish(answer: Answer): Unit = synchronized {
    current = Some(answer)
    if (wanted) schedule(IntervalMs - (clock.millis() - lastWrittenMs))
  }

  /** Forgets the files: a stand-by, asked, must not write the list it had while it served. */
  def forget(): Unit = synchronized { current = None }

  private def wanted: Boolean = clock.millis() < wantedUntilMs

  private def asked(): Unit = synchronized {
    wantedUntilMs = clock.millis() + wantedMs
    if (current.nonEmpty) schedule(0L)
  }

  // For the suites, which tell by these that nothing will be written, rather than wait to see.
  private[endpoint] def isWanted: Boolean = synchronized(wanted)
  private[endpoint] def writesScheduledSoFar: Long = synchronized(writesScheduled)

  private def schedule(delayMs: Long): Unit =
    if (!scheduled && !writer.isShutdown) {
      scheduled = true
      writesScheduled += 1
      writer.schedule((() => write()): Runnable, math.max(0L, delayMs))
    }

  private def write(): Unit = {
    val answer = synchronized {
      scheduled = false
      current
    }
    val refused =
      try {
        answer.foreach(a => ZnodeValues.put(client, path, Messages.encode(a, runKey)))
        false
      } catch {
        case e: KeeperException =>
          log.debug(s"aof: report of $host not written, trying again: $e")
          true
        case e: Exception =>
          log.warn(s"aof: report of $host not written; `status` shows an older one: $e")
          false
      }
    lastWrittenMs = clock.millis()
    // An idle host publishes nothing new, so a write ZooKeeper refused is tried again.
    if (refused) synchronized(if (wanted) schedule(IntervalMs))
  }

  /** Stops; a write under way finishes first, so the client can be closed after. */
  def close(): Unit = {
    asks.close()
    writer.shutdown()
    writer.awaitTermination(10000L)
  }
}
