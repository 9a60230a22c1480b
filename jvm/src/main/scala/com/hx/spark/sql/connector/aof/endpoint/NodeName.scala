package com.hx.spark.sql.connector.aof.endpoint

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.shim.SparkExecutors

/**
 * The node an executor reads the files of. By default its host; with `node.name.env`, the value
 * of that environment variable, so that executors with addresses of their own (Kubernetes pods)
 * on one node, seeing the same files, are one node to the source: one endpoint, one `host`.
 */
object NodeName {
  private val log = LoggerFactory.getLogger(getClass)
  @volatile private var warned = false

  /** This JVM's node; its host when the variable is not set here (with a warning, once). */
  def current(env: Option[String]): String = env match {
    case None => SparkExecutors.currentHost
    case Some(name) =>
      Option(System.getenv(name)).map(_.trim).filter(_.nonEmpty).getOrElse {
        val host = SparkExecutors.currentHost
        if (!warned) {
          warned = true
          log.warn(
            s"aof: node.name.env names $name, which is not set on $host; this executor reads " +
              s"as node $host. Set $name on every executor (spark.executorEnv.$name, or the " +
              "pod template's downward API).")
        }
        host
      }
  }
}
