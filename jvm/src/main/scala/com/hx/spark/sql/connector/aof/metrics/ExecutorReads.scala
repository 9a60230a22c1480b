package com.hx.spark.sql.connector.aof.metrics

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.LongAdder

/**
 * Lines and bytes the read tasks of this JVM read, per query (by its `meta.store`): what its
 * endpoint's gauges show of the reads on their executor.
 */
object ExecutorReads {
  private final class Totals {
    val lines = new LongAdder
    val bytes = new LongAdder
  }

  private val byStore = new ConcurrentHashMap[String, Totals]()

  private def of(store: String): Totals = byStore.computeIfAbsent(store, _ => new Totals)

  /** A task of the query read `lines` and `bytes`. */
  def add(store: String, lines: Long, bytes: Long): Unit = {
    val t = of(store)
    t.lines.add(lines)
    t.bytes.add(bytes)
  }

  def lines(store: String): Long = of(store).lines.sum()

  def bytes(store: String): Long = of(store).bytes.sum()
}
