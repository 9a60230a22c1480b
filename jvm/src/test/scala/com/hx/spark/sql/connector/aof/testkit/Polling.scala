package com.hx.spark.sql.connector.aof.testkit

/** Waiting for a condition in the suites: polled with a deadline, never a bare sleep. */
object Polling {

  /** Polls `condition` until it holds or `timeoutMs` passes; fails with `what` then. */
  def eventually(what: String, timeoutMs: Long = 60000)(condition: => Boolean): Unit = {
    val deadline = System.currentTimeMillis() + timeoutMs
    while (!condition) {
      if (System.currentTimeMillis() > deadline) throw new AssertionError(s"timed out: $what")
      Thread.sleep(20)
    }
  }
}
