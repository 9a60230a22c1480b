package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Try

/**
 * A read task that Spark ran on a host other than its files' cannot read them. Failing would
 * count towards `spark.task.maxFailures`, and a host whose tasks queue for longer than the
 * locality wait (it lost an executor, another job holds its slots) sends them elsewhere over and
 * over: the query would stop. So the task asks the driver to kill it instead, and Spark queues a
 * killed task again without counting a failure. Spark has no way for a task to end itself as
 * killed, hence the round trip: the task writes an ephemeral znode
 * `<run>/misplaced/<task attempt id>` holding this message, sealed with the run's secret, and the
 * driver kills that attempt (`SparkContext.killTaskAttempt`).
 */
object MisplacedTasks {

  /** The payload: the attempt id and the two hosts, so a sealed value names one attempt only. */
  def encode(taskAttemptId: Long, wanted: String, ran: String, runKey: String): Array[Byte] =
    MessageSeal.seal(s"$taskAttemptId $wanted $ran".getBytes(UTF_8), runKey)

  /** (attempt id, wanted host, host it ran on), or None when not sealed by this run. */
  def decode(value: Array[Byte], runKey: String): Option[(Long, String, String)] =
    Try(new String(MessageSeal.open(value, runKey), UTF_8).split(" ", 3)).toOption.collect {
      case Array(id, wanted, ran) if Try(id.toLong).isSuccess => (id.toLong, wanted, ran)
    }

  /** Why the task was killed, as Spark shows it. */
  def reason(wanted: String, ran: String): String =
    s"aof: a task for files of host $wanted ran on $ran; queued again for $wanted"
}
