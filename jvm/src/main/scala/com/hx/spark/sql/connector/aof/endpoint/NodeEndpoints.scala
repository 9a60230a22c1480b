package com.hx.spark.sql.connector.aof.endpoint

import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable

import org.slf4j.LoggerFactory

/** The endpoints running in this JVM: at most one per query run. */
object NodeEndpoints {
  private val log = LoggerFactory.getLogger(getClass)
  private val running = mutable.Map.empty[String, NodeEndpoint]
  @volatile private var runIds = Set.empty[String]
  private val starting = ConcurrentHashMap.newKeySet[String]()
  // Runs stopped from this JVM (the driver's, in local mode): a read task still running as its
  // query stops must not start an endpoint again for a server that is about to go away.
  private val stopped = mutable.LinkedHashSet.empty[String]

  /** Starts this JVM's endpoint for the run unless it already runs; cheap when it does. */
  def ensureRunning(spec: EndpointSpec, host: String): Unit = {
    val failed = synchronized {
      if (running.contains(spec.runId) || stopped.contains(spec.runId)) None
      else {
        val endpoint = new NodeEndpoint(spec, host, () => remove(spec.runId))
        running(spec.runId) = endpoint
        runIds = running.keySet.toSet
        try {
          endpoint.start()
          None
        } catch { case e: Exception => Some((endpoint, e)) }
      }
    }
    // Shut down outside the lock: closing removes the endpoint, which takes the lock.
    failed.foreach { case (endpoint, e) =>
      endpoint.shutdown()
      throw e
    }
  }

  /**
   * Like [[ensureRunning]], in the background: for read tasks, which every executor of a host
   * runs, so each joins the host's leader latch (serving or standing by) without a task ever
   * waiting for ZooKeeper or failing because of it.
   */
  def ensureRunningSoon(spec: EndpointSpec, host: String): Unit =
    if (!runIds.contains(spec.runId) && starting.add(spec.runId)) {
      val thread = new Thread(
        () =>
          try ensureRunning(spec, host)
          catch { case e: Exception => log.warn(s"aof: endpoint on $host did not start: $e") }
          finally starting.remove(spec.runId),
        s"aof-endpoint-start-$host"
      )
      thread.setDaemon(true)
      thread.start()
    }

  // For the suites: nothing else shows whether a stopped run left an endpoint running here.
  def runningCount: Int = synchronized(running.size)

  // For the suites: the report of the run's endpoint here, which tells what it will write.
  private[endpoint] def reportOf(runId: String): Option[EndpointReport] =
    synchronized(running.get(runId)).map(_.report)

  /** Stops this JVM's endpoint of the run, if any, and waits until its client is closed. */
  def stop(runId: String): Unit = {
    synchronized {
      stopped += runId
      if (stopped.size > 1000) stopped -= stopped.head
      running.get(runId)
    }.foreach(_.shutdown())
  }

  private def remove(runId: String): Unit = synchronized {
    running -= runId
    runIds = running.keySet.toSet
  }
}
