package com.hx.spark.sql.connector.aof.shim

import scala.util.matching.Regex

import org.apache.logging.log4j.LogManager
import org.apache.logging.log4j.core.{Filter, LogEvent, LoggerContext}
import org.apache.logging.log4j.core.config.LoggerConfig
import org.apache.logging.log4j.core.filter.AbstractFilter

/**
 * Spark 4 warns twice at every stop of a streaming query, whatever its source: "Failed to cancel
 * job group <run id>. Cannot find active jobs for it." (the query cancels its run's job group
 * before and after interrupting its thread, and between batches the group has no job). It means
 * nothing, and a user of the source would take it for the source's. The driver's logger of
 * Spark's scheduler gets a filter that drops that one message, unless the user's log
 * configuration names that logger; everything else it says is left as it is.
 */
private[aof] object StopWarnings {
  private[shim] val Logger = "org.apache.spark.scheduler.DAGScheduler"
  private val Dropped: Regex =
    """Failed to cancel job group \S+\. Cannot find active jobs for it\.""".r

  private final class DropMessage
      extends AbstractFilter(Filter.Result.DENY, Filter.Result.NEUTRAL) {
    override def filter(event: LogEvent): Filter.Result = {
      val message = event.getMessage.getFormattedMessage
      if (Dropped.pattern.matcher(message).matches()) onMatch else onMismatch
    }
  }

  /** Adds the filter once per JVM. */
  lazy val quiet: Unit =
    try {
      LogManager.getContext(false) match {
        case context: LoggerContext =>
          val config = context.getConfiguration
          if (!config.getLoggers.containsKey(Logger)) {
            // No level of its own: it keeps its parent's, whatever `setLogLevel` sets later.
            val logger = new LoggerConfig(Logger, null, true)
            val filter = new DropMessage
            filter.start()
            logger.addFilter(filter)
            config.addLogger(Logger, logger)
            context.updateLoggers()
          }
        case _ => () // another logging backend than Spark's: its configuration is the user's
      }
    } catch { case _: LinkageError => () }
}
