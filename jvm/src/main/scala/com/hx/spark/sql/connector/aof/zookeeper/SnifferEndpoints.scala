package com.hx.spark.sql.connector.aof.zookeeper

import scala.collection.mutable

/** The endpoints running in this JVM: at most one per query run. */
object SnifferEndpoints {
  private val running = mutable.Map.empty[String, SnifferEndpoint]

  /** Starts this JVM's endpoint for the run unless it already runs; cheap when it does. */
  def ensureRunning(spec: EndpointSpec, host: String): Unit = synchronized {
    if (!running.contains(spec.runId)) {
      val endpoint = new SnifferEndpoint(spec, host, () => remove(spec.runId))
      running(spec.runId) = endpoint
      try endpoint.start()
      catch {
        case e: Exception =>
          endpoint.shutdown()
          throw e
      }
    }
  }

  def runningCount: Int = synchronized(running.size)

  /** Stops this JVM's endpoint of the run, if any, and waits until its client is closed. */
  def stop(runId: String): Unit = synchronized(running.get(runId)).foreach(_.shutdown())

  private def remove(runId: String): Unit = synchronized(running -= runId)
}
