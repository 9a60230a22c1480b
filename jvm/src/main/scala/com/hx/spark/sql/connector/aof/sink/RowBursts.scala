package com.hx.spark.sql.connector.aof.sink

import org.apache.spark.TaskContext

/**
 * How a task's reader tells the sinks of its thread that every row it returned so far was taken
 * and it has no more at hand: it is about to look at its files again, or to wait for a write. A
 * sink that delivers each row as it comes (real-time mode) flushes then: once for the rows read
 * together, not once a row. A file written 10,000 lines a second comes in plans of some 80 rows
 * every 8 ms; flushed row by row, each line cost a system call.
 *
 * Spark hands a real-time task's rows from its reader to its `foreach` writer in the task's
 * thread, one at a time: when the reader stops, the writer has taken every row it returned.
 * Where no reader of this task tells (another source, micro-batches, a Spark that would hand
 * rows to another thread), a sink flushes each row.
 */
object RowBursts {

  /** The flushes of one task's sinks: a task that never said [[stop]] holds no later one's. */
  private final class Flushes(val task: Long) {
    var all: List[() => Unit] = Nil
  }

  private val told = new ThreadLocal[Flushes]

  /** The reader of this task tells the end of each burst of rows ([[ended]]) until [[stop]]. */
  def tell(): Unit = told.set(new Flushes(task))

  /** The reader of this task returned every row it had at hand: the sinks flush. */
  def ended(): Unit = Option(told.get).foreach(_.all.foreach(_()))

  /** The reader of this task tells no more: its task ends. */
  def stop(): Unit = told.remove()

  /**
   * Runs `flush` at the end of each burst of rows of this task's reader, if one tells; false
   * where none does, and the sink flushes each row itself.
   */
  def flushAtEnd(flush: () => Unit): Boolean =
    Option(told.get).filter(_.task == task).exists { flushes =>
      flushes.all = flush :: flushes.all
      true
    }

  private def task: Long = Option(TaskContext.get()).fold(-1L)(_.taskAttemptId())
}
