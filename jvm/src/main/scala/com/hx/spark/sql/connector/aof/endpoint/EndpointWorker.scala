package com.hx.spark.sql.connector.aof.endpoint

import java.util.concurrent.{ScheduledExecutorService, ScheduledThreadPoolExecutor, TimeUnit}

import scala.collection.mutable
import scala.util.control.NonFatal

/**
 * Where an endpoint's tasks run: one at a time, each when it comes due. On a thread of its own;
 * or, for simulated nodes many to a JVM (the fleet benchmark), on a pool they share, where a
 * thread each would take more of the machine than the nodes' state does. Either way, once shut
 * down it starts no task it holds, as a `ScheduledThreadPoolExecutor` that drops its delayed
 * tasks at shutdown.
 *
 * @param name   its own thread's name
 * @param shared the pool shared, if any: its tasks then run on the pool's threads, in order
 */
private[endpoint] final class EndpointWorker(
    name: String,
    shared: Option[ScheduledExecutorService]) {
  private val own = if (shared.nonEmpty) None else Some(ownThread())
  // On a shared pool: the tasks come due and not started, whether a pool thread takes them, and
  // whether one runs a task now. Used under this object's lock.
  private val due = mutable.Queue.empty[Runnable]
  private var draining = false
  private var running = false
  private var stopped = false

  private def ownThread(): ScheduledThreadPoolExecutor = {
    val worker = new ScheduledThreadPoolExecutor(
      1,
      { r: Runnable =>
        val t = new Thread(r, name)
        t.setDaemon(true)
        t
      })
    worker.setExecuteExistingDelayedTasksAfterShutdownPolicy(false)
    worker
  }

  /** Runs `task` in `delayMs`, after the tasks due before it; never once shut down. */
  def schedule(task: Runnable, delayMs: Long): Unit = own match {
    case Some(worker) => worker.schedule(task, delayMs, TimeUnit.MILLISECONDS)
    case None =>
      // Due now: queued here, in the order asked (the pool's threads would race to queue it).
      if (delayMs <= 0L) enqueue(task)
      else if (!isShutdown) {
        shared.get.schedule((() => enqueue(task)): Runnable, delayMs, TimeUnit.MILLISECONDS)
      }
  }

  def isShutdown: Boolean = own.fold(synchronized(stopped))(_.isShutdown)

  /** Starts no task after; one running ends by itself. */
  def shutdown(): Unit = own match {
    case Some(worker) => worker.shutdown()
    case None =>
      synchronized {
        stopped = true
        due.clear()
      }
  }

  /** Whether it is shut down with no task running, waiting up to `ms` for the one running. */
  def awaitTermination(ms: Long): Boolean = own match {
    case Some(worker) => worker.awaitTermination(ms, TimeUnit.MILLISECONDS)
    case None =>
      val deadline = System.nanoTime() + ms * 1000000L
      synchronized {
        while (!(stopped && !running) && System.nanoTime() < deadline) {
          wait(math.max(1L, (deadline - System.nanoTime()) / 1000000L))
        }
        stopped && !running
      }
  }

  private def enqueue(task: Runnable): Unit = synchronized {
    if (!stopped) {
      due.enqueue(task)
      if (!draining) {
        draining = true
        shared.get.execute(() => drain())
      }
    }
  }

  // A task's failure is its own to report, as an executor keeps it in the task's future: the
  // tasks after it run all the same.
  private def drain(): Unit = {
    var next = nextDue()
    while (next.nonEmpty) {
      try next.get.run()
      catch { case NonFatal(_) => () }
      next = nextDue()
    }
  }

  private def nextDue(): Option[Runnable] = synchronized {
    running = false
    notifyAll()
    if (stopped || due.isEmpty) {
      draining = false
      None
    } else {
      running = true
      Some(due.dequeue())
    }
  }
}
