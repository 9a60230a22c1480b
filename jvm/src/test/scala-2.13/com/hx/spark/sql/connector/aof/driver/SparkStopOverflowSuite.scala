package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, TimeUnit}

import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/**
 * Spark 4's own error at a stop that lands in a Python `foreachBatch`, made as PySpark makes it:
 * the batch's function, interrupted by the stop, fails with the Py4J error that carries the
 * Python traceback. When Spark no longer fails so, or fails otherwise, this suite says so.
 */
class SparkStopOverflowSuite extends AnyFunSuite with SparkTestKit {
  test("a stop amid a Python batch: Spark's stack overflow is said in one line, not printed") {
    val dir = newDir("stop")
    Files.write(dir.resolve("app.log"), "one\ntwo\n".getBytes(UTF_8))
    val (inBatch, stopped) = (new CountDownLatch(1), new CountDownLatch(1))
    // What PySpark's batch function raises when the stop interrupts it: Python's traceback, a
    // few thousand characters of it, after the line Py4J begins with.
    val traceback = "py4j.protocol.Py4JJavaError: An error occurred while calling o42.count.\n" +
      Seq.fill(200)("  File \"/app/batch.py\", line 12, in each\n    df.count()\n").mkString
    val each: (DataFrame, Long) => Unit = (_, _) => {
      inBatch.countDown()
      // Until the stop interrupts it (or, at worst, the query has stopped).
      try stopped.await(60, TimeUnit.SECONDS)
      catch { case _: InterruptedException => throw new py4j.Py4JException(traceback) }
    }
    SparkStopOverflow.quiet
    val before = SparkStopOverflow.quieted
    val query = spark.readStream
      .format("aof")
      .load(s"$dir/app\\.log")
      .writeStream
      .option("checkpointLocation", newDir("checkpoint").toString)
      .foreachBatch(each)
      .start()
    assert(inBatch.await(60, TimeUnit.SECONDS), "no batch began")
    try query.stop()
    finally stopped.countDown()
    eventually("Spark's error said in one line", 30000)(SparkStopOverflow.quieted > before)
  }

  test("Spark's overflow is known by its frames, whichever call of the regex it ends in") {
    val stream = new Thread("stream execution thread for [id = 1, runId = 2]")
    def overflow(frames: (String, String)*): StackOverflowError = {
      val error = new StackOverflowError()
      error.setStackTrace(frames.map { case (c, m) => new StackTraceElement(c, m, "", 1) }.toArray)
      error
    }
    val regex = Seq.fill(50)("java.util.regex.Pattern$Branch" -> "match")
    val table = Seq(
      "in the regex" -> (overflow(regex: _*), true),
      // As a CI run printed it: the deepest frame the regex's call of Character.
      "in what the regex calls" ->
        (overflow(("java.lang.Character" -> "codePointAt") +: regex: _*), true),
      "in Spark's match" -> (
        overflow(
          regex ++ Seq(
            "org.apache.spark.sql.execution.streaming.StreamExecution$" -> "isInterruptionException",
            "org.apache.spark.sql.execution.streaming.StreamExecution" -> "runStream"
          ): _*),
        true),
      "in a String, no regex" -> (
        overflow("java.lang.String" -> "charAt", "app.Batch" -> "run"),
        false),
      "in the regex, called by other code" ->
        (overflow(regex :+ ("app.Parser" -> "parse"): _*), false)
    )
    for ((name, (error, sparks)) <- table) {
      assert(SparkStopOverflow.isSparks(stream, error) === sparks, name)
    }
    assert(!SparkStopOverflow.isSparks(new Thread("worker"), overflow(regex: _*)))
  }

  test("any other thread's death is printed as the JVM prints it") {
    SparkStopOverflow.quiet
    val handler = Thread.getDefaultUncaughtExceptionHandler
    val printed = new java.io.ByteArrayOutputStream()
    val err = System.err
    System.setErr(new java.io.PrintStream(printed, true, "UTF-8"))
    try {
      handler.uncaughtException(new Thread("worker"), new IllegalStateException("boom"))
      // A stream execution thread's overflow elsewhere than in a regex.
      val stream = new Thread("stream execution thread for [id = 1, runId = 2]")
      handler.uncaughtException(stream, new StackOverflowError())
    } finally System.setErr(err)
    val lines = printed.toString("UTF-8").linesIterator.toSeq
    assert(lines.head === "Exception in thread \"worker\" java.lang.IllegalStateException: boom")
    assert(lines.exists(_.startsWith("\tat ")))
    assert(
      lines.contains("Exception in thread \"stream execution thread for [id = 1, runId = 2]\" " +
        "java.lang.StackOverflowError"))
  }
}
