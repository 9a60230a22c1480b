package com.hx.spark.sql.connector.aof.testkit

import java.util.concurrent.ConcurrentLinkedQueue

import scala.collection.JavaConverters._

import org.apache.logging.log4j.LogManager
import org.apache.logging.log4j.core.{LogEvent, LoggerContext}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property

/** What a logger says while a test runs: the messages as they would be printed. */
object Logged {
  def context: LoggerContext = LogManager.getContext(false).asInstanceOf[LoggerContext]

  /** Runs `body` with a function returning the messages `logger` logged so far. */
  def during[T](logger: String)(body: (() => Seq[String]) => T): T = {
    val seen = new ConcurrentLinkedQueue[String]()
    val appender =
      new AbstractAppender("seen", null, null, true, Property.EMPTY_ARRAY) {
        override def append(event: LogEvent): Unit =
          seen.add(event.getMessage.getFormattedMessage)
      }
    appender.start()
    val target = context.getLogger(logger)
    target.addAppender(appender)
    try body(() => seen.asScala.toSeq)
    finally target.removeAppender(appender)
  }

  /** An event as the console prints it: its logger, level and message. */
  final case class Printed(logger: String, level: String, message: String)

  /**
   * Runs `body` with a function returning what every logger printed so far through the root
   * logger, after its filters: what a session's console shows, less its level threshold.
   */
  def printed[T](body: (() => Seq[Printed]) => T): T = {
    val seen = new ConcurrentLinkedQueue[Printed]()
    val appender =
      new AbstractAppender("printed", null, null, true, Property.EMPTY_ARRAY) {
        override def append(event: LogEvent): Unit =
          seen.add(
            Printed(event.getLoggerName, event.getLevel.name, event.getMessage.getFormattedMessage))
      }
    appender.start()
    val root = context.getConfiguration.getRootLogger
    root.addAppender(appender, null, null)
    context.updateLoggers()
    try body(() => seen.asScala.toSeq)
    finally {
      root.removeAppender(appender.getName)
      context.updateLoggers()
    }
  }
}
