package com.hx.spark.sql.connector.aof.shim

import java.util.concurrent.{CountDownLatch, RejectedExecutionException, TimeUnit}
import java.util.concurrent.locks.LockSupport

import scala.collection.JavaConverters._

import org.apache.logging.log4j.{LogManager, Logger}
import org.apache.spark.{SparkException, TaskContext, TaskKilledException}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Logged, Queries, SparkTestKit}

class StopWarningsSuite extends AnyFunSuite with SparkTestKit {

  test("a query's stop says nothing of job groups; the scheduler's other warnings are kept") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    LogWriter.append(dir.resolve("app.log"), Seq("a", "b"))
    val query = Queries.start(spark, s"$dir/app\\.log", ckpt, out)
    Queries.drain(query)
    val printed = Logged.printed { seen =>
      query.stop()
      LogManager.getLogger(StopWarnings.Logger).warn("Failed to cancel job group x: other words")
      // ZooKeeper's server says at WARN that a client closed: the test's log configuration names
      // that logger (for ZooKeeperLogsSuite); a user's gets it at ERROR.
      seen().filter(p => Set("WARN", "ERROR")(p.level) && !p.logger.startsWith("org.apache.zoo"))
    }
    // Spark 4 said "Failed to cancel job group <run id>. Cannot find active jobs for it." twice.
    assert(printed.map(_.message) === Seq("Failed to cancel job group x: other words"))
  }

  test("an endpoint's election closed on the way says nothing; other failures of it are kept") {
    val kept = keptOf(StopWarnings.Latch) { latch =>
      // What Curator logs when the client closes (rc -112) before the election's znode is made.
      latch.error("creatingParentContainersIfNeeded() failed (rc = -112)")
      latch.error("getChildren() failed. rc = -112")
      latch.error("[id=7@host] creatingParentContainersIfNeeded() failed (rc = -112)")
      latch.error("creatingParentContainersIfNeeded() failed (rc = -101)")
    }
    assert(kept === Seq("creatingParentContainersIfNeeded() failed (rc = -101)"))
  }

  test("a reply's next step on a closed client says nothing; other failures of it are kept") {
    StopWarnings.quiet
    val printed = Logged.printed { seen =>
      val node = LogManager.getLogger("org.apache.curator.framework.recipes.nodes.PersistentNode")
      // What Curator 5, then Curator 2, throws for a request made on a closed client.
      node.error(
        "Could not delete node",
        new IllegalStateException("Expected state [STARTED] was [STOPPED]"))
      node.error("Could not delete", new IllegalStateException("instance must be started before"))
      node.error("Could not delete", new IllegalStateException("Client is not started"))
      node.error(
        "Could not delete node",
        new IllegalStateException("Expected state [STARTED] was [LATENT]"))
      node.error(
        "Could not delete node",
        new RuntimeException("Expected state [STARTED] was [STOPPED]"))
      seen().filter(_.logger.startsWith("org.apache.curator")).map(_.message)
    }
    assert(printed === Seq("Could not delete node", "Could not delete node"))
  }

  test("a reply that comes as a ZooKeeper client closes says nothing; other errors are kept") {
    val kept = keptOf(StopWarnings.NettySocket) { socket =>
      // What ZooKeeper's Netty client logs when a reply finds its request gone with the close.
      socket.error(
        "Unexpected throwable",
        new java.io.IOException("Nothing in the queue, but got 6"))
      socket.error("Unexpected throwable", new java.io.IOException("Connection reset by peer"))
    }
    assert(kept === Seq("Unexpected throwable"))
  }

  test("a change of state met as a client closes says nothing; the manager's others are kept") {
    val kept = keptOf(StopWarnings.ConnectionStates) { states =>
      // What Curator 2 and 5 say of a change of state taken up after the close cleared listeners.
      states.warn("There are no ConnectionStateListeners registered.")
      states.warn("Session timeout has elapsed while SUSPENDED. Injecting a session expiration.")
    }
    assert(
      kept === Seq("Session timeout has elapsed while SUSPENDED. Injecting a session expiration."))
  }

  test("a task's end as the session stops says nothing; the scheduler's other errors are kept") {
    StopWarnings.quiet
    val printed = Logged.printed { seen =>
      val scheduler = LogManager.getLogger(StopWarnings.TaskScheduler)
      // What Spark's local scheduler logs when a task ends as its context stops.
      val shut = "Task TaskResultGetter rejected from java.util.concurrent.ThreadPoolExecutor@1" +
        "[Terminated, pool size = 0, active threads = 0, queued tasks = 0, completed tasks = 31]"
      scheduler.error("Exception in statusUpdate", new RejectedExecutionException(shut))
      scheduler.error(
        "Exception in statusUpdate",
        new RejectedExecutionException("rejected from pool[Running, pool size = 4]"))
      scheduler.error("Exception in statusUpdate", new IllegalStateException("[Terminated"))
      seen().filter(_.logger == StopWarnings.TaskScheduler).map(_.message)
    }
    assert(printed === Seq.fill(2)("Exception in statusUpdate")) // the pool running, another error
  }

  test("a killed task's clean-up failing says nothing; a clean-up failing otherwise is kept") {
    StopWarnings.quiet
    val printed = Logged.printed { seen =>
      val utils = LogManager.getLogger(StopWarnings.Utils)
      // What a Python `foreach`'s writer thread logs when its task is killed by a query's stop.
      val killed = new TaskKilledException("Stage cancelled: Query [id = q] was stopped")
      utils.warn(
        "Suppressing exception in finally: killed",
        new RuntimeException("foreach", killed))
      utils.warn("Suppressing exception in finally: other", new RuntimeException("foreach"))
      seen().filter(_.logger == StopWarnings.Utils).map(_.message)
    }
    assert(printed === Seq("Suppressing exception in finally: other"))
  }

  test(
    "a killed task's broadcast gone as it ends says nothing; the same in a task running is kept") {
    StopWarnings.quiet
    val sc = spark.sparkContext
    val printed = Logged.printed { seen =>
      sc.parallelize(Seq(1), 1).foreach(_ => KilledTask.broadcastGone())
      // A task killed by its job group's cancel, as a query's stop kills its batch's.
      val job = new Thread(() => {
        sc.setJobGroup("killed", "a stopped query's batch", interruptOnCancel = true)
        scala.util.Try(sc.parallelize(Seq(1), 1).foreach(_ => KilledTask.untilKilled()))
      })
      job.start()
      assert(KilledTask.running.await(60, TimeUnit.SECONDS))
      sc.cancelJobGroup("killed")
      job.join(60000)
      assert(KilledTask.ended.await(60, TimeUnit.SECONDS))
      seen().filter(_.logger == StopWarnings.Listeners)
    }
    assert(printed.map(_.message) === Seq("Error in TaskCompletionListener"))
  }

  /** The messages `log` gives `logger` that the filter lets through. */
  private def keptOf(logger: String)(log: Logger => Unit): Seq[String] = {
    StopWarnings.quiet
    Logged.printed { seen =>
      log(LogManager.getLogger(logger))
      seen().filter(_.logger == logger).map(_.message)
    }
  }

  test("no logger gets a configuration of its own, which Spark's WARN default would let through") {
    StopWarnings.quiet
    val configured = Logged.context.getConfiguration.getLoggers.keySet.asScala
    assert(!configured.exists(_.startsWith("org.apache.spark.")), configured)
  }
}

/** A task of a local job, in one JVM with the suite: it waits to be killed, then logs. */
private object KilledTask {
  val running = new CountDownLatch(1)
  val ended = new CountDownLatch(1)

  /** What Spark's task logs when the broadcast it lets go of at its end was removed. */
  def broadcastGone(): Unit = {
    val gone = "[INTERNAL_ERROR_STORAGE] Block broadcast_31 does not exist. SQLSTATE: XX000"
    LogManager
      .getLogger(StopWarnings.Listeners)
      .error("Error in TaskCompletionListener", new SparkException(gone))
  }

  def untilKilled(): Unit = {
    running.countDown()
    // Parked until the kill marks the task and interrupts its thread, or a minute has passed.
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
    while (!TaskContext.get().isInterrupted() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100))
    }
    if (TaskContext.get().isInterrupted()) broadcastGone()
    ended.countDown()
  }
}
