package com.hx.spark.sql.connector.aof.driver

import java.util.concurrent.atomic.AtomicLong

import org.slf4j.LoggerFactory

/**
 * Spark's own error at a stop that lands in a Python `foreachBatch` (Spark 4): the stream
 * execution thread matches the Python error's text with a regex that recurses once a character
 * (`StreamExecution.isInterruptionException`, `((.|\r\n|\r|\n)*)`), and dies of a
 * `StackOverflowError` that the JVM prints with a thousand frames of `java.util.regex`, whatever
 * the source. The stop is done by then, and the cut batch is replayed at the next start, as Spark
 * replays any. Where the driver's JVM has no default uncaught-exception handler, the source sets
 * one that says that error in one line (INFO) and prints every other as the JVM does.
 */
private[aof] object SparkStopOverflow {
  private val log = LoggerFactory.getLogger(getClass)
  private val said = new AtomicLong()

  /** Sets the handler, once per JVM, unless the JVM has one. */
  lazy val quiet: Unit = synchronized {
    if (Thread.getDefaultUncaughtExceptionHandler == null) {
      Thread.setDefaultUncaughtExceptionHandler(Handler)
    }
  }

  /** How many such errors were said in one line so far. */
  def quieted: Long = said.get

  /**
   * Whether `thread` died of Spark's error: a stream execution thread's stack overflow in a regex
   * (its stack cut at the JVM's depth holds no other frame), or in Spark's match itself. The
   * deepest frames may be what the regex calls (`Character.codePointAt`, any JDK class).
   */
  def isSparks(thread: Thread, error: Throwable): Boolean = {
    def inRegex(f: StackTraceElement) = f.getClassName.startsWith("java.util.regex.")
    def inJdk(f: StackTraceElement) = Seq("java.", "jdk.").exists(f.getClassName.startsWith)
    val frames = error.getStackTrace.dropWhile(f => !inRegex(f) && inJdk(f))
    error.isInstanceOf[StackOverflowError] &&
    thread.getName.startsWith("stream execution thread for ") &&
    frames.headOption.exists(inRegex) &&
    (frames.forall(inRegex) || frames.exists(_.getMethodName == "isInterruptionException"))
  }

  private object Handler extends Thread.UncaughtExceptionHandler {
    override def uncaughtException(thread: Thread, error: Throwable): Unit =
      if (isSparks(thread, error)) {
        said.incrementAndGet()
        log.info(
          s"aof: Spark's ${thread.getName} ended on a stack overflow in its own match of a " +
            "stopped Python batch's error; the stop is done, and the batch is read again at the " +
            "next start")
      } else {
        // What the JVM prints without a default handler (ThreadGroup.uncaughtException).
        System.err.print(s"""Exception in thread "${thread.getName}" """)
        error.printStackTrace(System.err)
      }
  }
}
