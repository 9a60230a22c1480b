package com.hx.spark.sql.connector.aof.shim

import java.util.concurrent.RejectedExecutionException

import scala.util.Try
import scala.util.matching.Regex

import org.apache.curator.framework.recipes.leader.LeaderLatch
import org.apache.logging.log4j.LogManager
import org.apache.logging.log4j.core.{Filter, LogEvent, LoggerContext}
import org.apache.logging.log4j.core.filter.AbstractFilter
import org.apache.spark.{TaskContext, TaskKilledException}
import org.apache.spark.sql.SparkSession

/**
 * What Spark logs when a streaming query is stopped, as if something had failed, whatever the
 * query's source. A user of the source would take it for the source's:
 *  - Spark 4 warns twice at every stop: "Failed to cancel job group <run id>. Cannot find active
 *    jobs for it." (the query cancels its run's job group before and after interrupting its
 *    thread, and between batches the group has no job);
 *  - a session stopped while a task ends: the scheduler's pool for the task's result is shut,
 *    and the task's end is logged at ERROR with the pool's refusal;
 *  - a stop during a batch (always, in real-time mode, whose batch runs for minutes) kills its
 *    tasks: the sink's writer logs its abort at ERROR, with the interrupted thread's stack, and
 *    the driver the abort of the write and the task lost; a Python `foreach` warns that its
 *    clean-up failed, and that the Python worker it was starting did not connect;
 *  - a killed task that ends after its stage's broadcast was cleaned up (a real-time batch's
 *    task, whose stop is slower than the next query's start): its last listener, which lets go
 *    of the broadcast, finds it gone and says so at ERROR with Spark's stack;
 *  - the interrupted query thread, when it was writing the checkpoint, Hadoop's stack of it, and
 *    the run's ZooKeeper clients, closed while waiting for a reply, Curator's (an endpoint's
 *    leader election among them, a reply's next step on the closed client, or a change of the
 *    connection's state met as it closed) and ZooKeeper's own (a reply that came as it closed).
 * These messages are dropped when they come of a stop (the run they name is of no query still
 * active, or the task was killed); the same words of a query running are kept, and the rest.
 *
 * The filter goes on the root logger's configuration, not on a configuration of each logger:
 * Spark's shell filter (the WARN default of `pyspark` and `spark-submit`) lets through every
 * level of a logger that has a configuration of its own, so their INFO lines would flood every
 * session.
 */
private[aof] object StopWarnings {
  private[shim] val Logger = "org.apache.spark.scheduler.DAGScheduler"
  private val WriteExec = "org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2Exec"
  private val WritingTask = "org.apache.spark.sql.execution.datasources.v2.DataWritingSparkTask"
  private val TaskSetManager = "org.apache.spark.scheduler.TaskSetManager"
  private[shim] val TaskScheduler = "org.apache.spark.scheduler.TaskSchedulerImpl"
  private[shim] val Utils = "org.apache.spark.util.Utils"
  private[shim] val Listeners = "org.apache.spark.TaskContextImpl"
  private val PythonWorkers = "org.apache.spark.api.python.PythonWorkerFactory"
  private val HadoopShell = "org.apache.hadoop.util.Shell"
  private val Curator = "org.apache.curator.framework.imps.CuratorFrameworkImpl"
  private val AnyCurator = "org.apache.curator."
  private[shim] val Latch: String = classOf[LeaderLatch].getName
  private[shim] val NettySocket = "org.apache.zookeeper.ClientCnxnSocketNetty"
  private[shim] val ConnectionStates = "org.apache.curator.framework.state.ConnectionStateManager"

  private val RunId: Regex = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}".r

  /** A logger (or the start of its name), words of its message, when it comes of a stop. */
  private final case class Rule(logger: String, message: Regex, ofStop: LogEvent => Boolean)

  private val NoJobs = """Failed to cancel job group \S+\. Cannot find active jobs for it\.$""".r

  private val Rules: Seq[Rule] = Seq(
    Rule(Logger, NoJobs, _ => true),
    Rule(WriteExec, "Data source write support .* abort".r, e => runStopping(e.getThreadName)),
    Rule(TaskSetManager, "Lost task .*TaskKilled".r, e => runStopping(message(e))),
    // A task's end reported as the session stops: the pool that takes it is shut already.
    Rule(TaskScheduler, "Exception in statusUpdate".r, e => poolShut(e.getThrown)),
    Rule(Utils, "Aborting task".r, _ => taskKilled),
    Rule(WritingTask, "Abort".r, _ => taskKilled),
    // A killed task's Python `foreach`: its clean-up, in the task's thread or its writer's,
    // fails as it is killed, and so does the Python worker it was starting.
    Rule(Utils, "Suppressing exception in finally".r, e => taskKilled || killedBy(e.getThrown)),
    Rule(
      PythonWorkers,
      "Python worker to connect back|Lost connection to Python".r,
      _ => taskKilled),
    // A killed task's broadcast, removed before the task let go of it (Spark 3's words, then 4's).
    Rule(Listeners, "Error in TaskCompletionListener".r, e => taskKilled && broadcastGone(e)),
    // The query's thread, interrupted while it renamed a checkpoint file.
    Rule(HadoopShell, "Interrupted while joining".r, e => runStopping(e.getThreadName)),
    // A ZooKeeper client of the run closed while its background thread waited for a reply.
    Rule(Curator, "Background exception".r, _.getThrown.isInstanceOf[InterruptedException]),
    // An endpoint's election, its client closed (rc -112) while a request of it was on the way:
    // an endpoint stopped as it started. A session lost while running is said by its own line.
    // Curator 5 starts the message with the latch's id.
    Rule(
      Latch,
      """^(\[id=[^]]*\] )?(creatingParentContainersIfNeeded|getChildren)\(\) failed.*-112\)?$""".r,
      _ => true),
    // A reply to a run's client that comes after the client closed: what Curator does next with
    // it (an election's next step, a node's clean-up) fails to send, on a client that is gone.
    Rule(AnyCurator, "".r, e => clientClosed(e.getThrown)),
    // A run's client closed as a reply came: the reply finds its request gone ("Nothing in the
    // queue, but got <xid>"); the client's connection is over anyway.
    Rule(NettySocket, "Unexpected throwable".r, e => thrownSays(e, "Nothing in the queue")),
    // A connection's change of state taken up as its client closed, which clears the client's
    // listeners first: every client of the source has one from its start (`ZkClients.open`).
    Rule(ConnectionStates, "^There are no ConnectionStateListeners registered\\.$".r, _ => true)
  )

  // Curator's words for a request made on a closed client: Curator 5's, Curator 2's (Spark 3),
  // and both's when the request asks for the client's session.
  private val ClosedClient: Regex =
    """was \[STOPPED\]$|^instance must be started|^Client is not started""".r

  private def clientClosed(thrown: Throwable): Boolean = thrown match {
    case e: IllegalStateException =>
      Option(e.getMessage).exists(ClosedClient.findFirstIn(_).isDefined)
    case _ => false
  }

  private def causes(thrown: Throwable): Seq[Throwable] =
    Iterator.iterate(thrown)(_.getCause).takeWhile(_ != null).take(20).toSeq

  private def poolShut(thrown: Throwable): Boolean = thrown match {
    case e: RejectedExecutionException => Option(e.getMessage).exists(_.contains("[Terminated"))
    case _ => false
  }

  private def killedBy(thrown: Throwable): Boolean =
    causes(thrown).exists(_.isInstanceOf[TaskKilledException])

  private val GoneBroadcast: Regex = """Block broadcast_\d+\S* does not exist""".r

  private def broadcastGone(event: LogEvent): Boolean =
    Option(event.getThrown).toSeq.flatMap(causes).exists { t =>
      Option(t.getMessage).exists(GoneBroadcast.findFirstIn(_).isDefined)
    }

  private def thrownSays(event: LogEvent, words: String): Boolean =
    Option(event.getThrown).flatMap(t => Option(t.getMessage)).exists(_.startsWith(words))

  private def message(event: LogEvent): String = event.getMessage.getFormattedMessage

  private def taskKilled: Boolean = Option(TaskContext.get()).exists(_.isInterrupted())

  /**
   * Whether `text` names a run (its id) of no query still active: one stopped, being stopped, or
   * failed (whose error Spark reports itself). A run still going keeps its messages.
   */
  private def runStopping(text: String): Boolean = {
    val runs = RunId.findAllIn(text).toSet
    val sessions = (SparkSession.getActiveSession ++ SparkSession.getDefaultSession).toSeq
    runs.nonEmpty && Try {
      !sessions.distinct.exists(_.streams.active.exists { q =>
        runs.contains(q.runId.toString) && q.isActive
      })
    }.getOrElse(false)
  }

  private final class DropStopMessages
      extends AbstractFilter(Filter.Result.DENY, Filter.Result.NEUTRAL) {
    override def filter(event: LogEvent): Filter.Result = {
      val name = event.getLoggerName
      val dropped = Rules.exists { r =>
        name.startsWith(r.logger) && r.message.pattern.matcher(message(event)).find() &&
        r.ofStop(event)
      }
      if (dropped) onMatch else onMismatch
    }
  }

  /** Adds the filter once per JVM: the driver's, and an executor's when it reads. */
  lazy val quiet: Unit =
    try {
      LogManager.getContext(false) match {
        case context: LoggerContext =>
          // A configuration of one of these loggers, the user's, passes its events to the
          // root's when additive: the filter drops the messages there too.
          val filter = new DropStopMessages
          filter.start()
          context.getConfiguration.getRootLogger.addFilter(filter)
          context.updateLoggers()
        case _ => () // another logging backend than Spark's: its configuration is the user's
      }
    } catch { case _: LinkageError => () }
}
