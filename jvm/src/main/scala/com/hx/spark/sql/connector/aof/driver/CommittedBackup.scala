package com.hx.spark.sql.connector.aof.driver

import java.util.concurrent.{Executors, RejectedExecutionException, TimeUnit}
import java.util.concurrent.atomic.AtomicBoolean

import org.slf4j.LoggerFactory

/**
 * Copies the checkpoint's last committed offsets to the backup in ZooKeeper when they changed.
 * Read from the checkpoint rather than taken from `commit`, which Spark calls only when the next
 * batch starts: so the backup trails the sink by at most a trigger, also after a crash. Off the
 * trigger's path: with thousands of files the offsets are megabytes to read and compress. So a
 * backup comes [[CommittedBackup.Spacing]] times as long as the last one took after it, at least:
 * a few files' offsets are backed up at every trigger, and twenty thousand files' cost the driver
 * a hundredth of its time, not a backup a trigger.
 *
 * @param committed the checkpoint's last committed offsets as JSON, if any
 * @param nanoTime  what a backup's time is taken by: tests move it
 */
final class CommittedBackup(
    committed: () => Option[String],
    nanoTime: () => Long = () => System.nanoTime()) {
  private val log = LoggerFactory.getLogger(getClass)
  private val underWay = new AtomicBoolean(false)
  private val pool = Executors.newSingleThreadExecutor { r =>
    val t = new Thread(r, "aof-offset-backup")
    t.setDaemon(true)
    t
  }
  @volatile private var backedUp: Option[String] = None
  // When the next backup may begin, after one that wrote.
  @volatile private var nextAtNs: Option[Long] = None

  /**
   * Backs up in the background, unless a backup is under way, the last one was too recent, or
   * this was stopped.
   */
  def soon(to: => OffsetBackup): Unit =
    if (!pool.isShutdown && nextAtNs.forall(nanoTime() - _ >= 0L) &&
      underWay.compareAndSet(false, true)) {
      try {
        val backup = to // on the caller's thread: the stream's session, which `stop` locks
        pool.execute(() =>
          try now(backup)
          finally underWay.set(false))
      } catch {
        case e: Throwable =>
          underWay.set(false)
          if (!e.isInstanceOf[RejectedExecutionException]) throw e
      }
    }

  /** Backs up here and now. */
  def now(to: OffsetBackup): Unit =
    try {
      val began = nanoTime()
      val latest = committed()
      if (latest.nonEmpty && latest != backedUp) {
        to.write(latest.get)
        backedUp = latest
        val ended = nanoTime()
        nextAtNs = Some(ended + (ended - began) * CommittedBackup.Spacing)
      }
    } catch { case e: Exception => log.warn(s"aof: could not back up the committed offsets: $e") }

  /** Lets a backup under way finish. */
  def stop(): Unit = {
    pool.shutdown()
    pool.awaitTermination(30, TimeUnit.SECONDS)
  }
}

object CommittedBackup {

  /** How many times as long as a backup takes the next waits after it, at least. */
  val Spacing = 100L
}
