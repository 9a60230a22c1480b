package com.hx.spark.sql.connector.aof.driver

import java.util.concurrent.TimeoutException

import scala.concurrent.Await
import scala.concurrent.duration.Duration

import org.apache.spark.FutureAction
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.driver.EndpointLaunches.Launch

/**
 * Endpoints started on the executors that lack one, by a Spark job, one job at a time.
 *
 * @param launch starts endpoints on executors (host, id); yields (host, node) of each started
 * @param nodes  the nodes of Spark's hosts, learned from the launches
 */
private[driver] final class EndpointLaunches(
    launch: Seq[(String, String)] => Launch,
    nodes: ExecutorNodes) {
  private val log = LoggerFactory.getLogger(getClass)

  /**
   * Starts endpoints on the executors of hosts without one, and on executors that joined since
   * (stand-bys to be): the executors launched on so far, and the launch job now. A launch that
   * failed for the query's settings fails the trigger.
   */
  def missing(
      byHost: Map[String, Seq[String]],
      serving: Set[String],
      deadline: Long,
      launched: Set[(String, String)],
      launching: Option[Launch]): (Set[(String, String)], Option[Launch]) = {
    val toLaunch = byHost.toSeq
      .flatMap { case (host, ids) => ids.map(host -> _) }
      .filter(e => !nodes.of(e._1).exists(serving) || !launched(e))
    val started = if (toLaunch.isEmpty) None else start(toLaunch, deadline, launching)
    val now = started.orElse(launching)
    nodes.learn(now)
    now
      .flatMap(_.value)
      .flatMap(_.failed.toOption)
      .flatMap(LaunchFailure.settingsError)
      .foreach(e => throw e)
    (if (started.isEmpty) launched else launched ++ toLaunch, now)
  }

  /**
   * Starts endpoints on `toLaunch` unless a launch job still runs; the job started, if any. The
   * first is waited for until `deadline`, so that the first trigger (all of AvailableNow's) sees
   * every host; later ones run on, so that a hung executor holds no trigger up.
   */
  private def start(
      toLaunch: Seq[(String, String)],
      deadline: Long,
      launching: Option[Launch]): Option[Launch] =
    if (!launching.forall(_.isCompleted)) None
    else {
      val job = launch(toLaunch)
      if (launching.isEmpty) {
        try Await.ready(job, Duration.fromNanos(math.max(0L, deadline - System.nanoTime())))
        catch { case _: TimeoutException => log.warn("aof: some endpoints did not start in time") }
      }
      Some(job)
    }
}

private[driver] object EndpointLaunches {
  type Launch = FutureAction[Seq[(String, String)]]
}
