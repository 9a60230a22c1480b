package com.hx.spark.sql.connector.aof.endpoint

import java.util.concurrent.{ScheduledThreadPoolExecutor, TimeUnit}

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.KeeperException
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{Messages, Response, ZnodeValues}

/**
 * A node's files in full, for `pyspark-aof status`: answers carry only what changed, so the
 * whole picture is published apart from them, on its own thread and at most once a second.
 * With ten thousand files writing it costs about as much as an answer in full did.
 */
final class EndpointReport(client: CuratorFramework, path: String, runKey: String, host: String) {
  private val log = LoggerFactory.getLogger(getClass)
  private val IntervalMs = 1000L
  private val writer = new ScheduledThreadPoolExecutor(
    1,
    { r: Runnable =>
      val t = new Thread(r, s"aof-endpoint-report-$host")
      t.setDaemon(true)
      t
    })
  writer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false)
  private var latest: Option[Response] = None
  private var scheduled = false
  @volatile private var lastWrittenNanos = System.nanoTime() - IntervalMs * 1000000L

  /** Publishes `answer` (in full) within a second; a later one replaces it while it waits. */
  def publish(answer: Response): Unit = synchronized {
    latest = Some(answer)
    if (!scheduled && !writer.isShutdown) {
      scheduled = true
      val sinceMs = (System.nanoTime() - lastWrittenNanos) / 1000000L
      writer.schedule(
        (() => write()): Runnable,
        math.max(0L, IntervalMs - sinceMs),
        TimeUnit.MILLISECONDS)
    }
  }

  private def write(): Unit = {
    val answer = synchronized {
      scheduled = false
      val a = latest
      latest = None
      a
    }
    val failed =
      try {
        answer.foreach(a => ZnodeValues.put(client, path, Messages.encode(a, runKey)))
        None
      } catch {
        case e: KeeperException =>
          log.debug(s"aof: report of $host not written, trying again: $e")
          answer
        case e: Exception =>
          log.warn(s"aof: report of $host not written; `status` shows an older one: $e")
          None
      }
    lastWrittenNanos = System.nanoTime()
    // An idle host publishes nothing new, so a write ZooKeeper refused is tried again.
    failed.foreach(a => synchronized(if (latest.isEmpty) publish(a)))
  }

  /** Stops; a write under way finishes first, so the client can be closed after. */
  def close(): Unit = {
    writer.shutdown()
    writer.awaitTermination(10, TimeUnit.SECONDS)
  }
}
