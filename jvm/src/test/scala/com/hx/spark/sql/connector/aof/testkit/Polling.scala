package com.hx.spark.sql.connector.aof.testkit

import org.scalatest.concurrent.Eventually
import org.scalatest.time.{Millis, Span}

/** Waiting for a condition in the suites: polled with a deadline, never a bare sleep. */
object Polling {

  /** Polls `condition` until it holds or `timeoutMs` passes; fails naming `what` then. */
  def eventually(what: String, timeoutMs: Long = 60000)(condition: => Boolean): Unit =
    Eventually.eventually(
      Eventually.timeout(Span(timeoutMs, Millis)),
      Eventually.interval(Span(20, Millis))) {
      if (!condition) throw new AssertionError(s"timed out: $what")
    }
}
