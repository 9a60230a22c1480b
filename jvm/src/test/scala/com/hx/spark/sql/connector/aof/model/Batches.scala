package com.hx.spark.sql.connector.aof.model

import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{CopiesLookedFor, FileRange, PlanLimits, Planner, Ranges}
import com.hx.spark.sql.connector.aof.stream.ReadCounters

/**
 * A query's triggers on one node, as the models run them without Spark's scheduler: the node's
 * answer planned, the batch read range by range and committed. How a suite's node answers and
 * how it reads a range are its own; so is what it does between the steps.
 */
abstract class Batches(host: String, limits: PlanLimits, counters: ReadCounters) {
  var committed: AofOffset = AofOffset.Empty
  private var planned = Option.empty[AofOffset]
  private var answers = 0
  private var plannedLoss = 0L

  /** Whether a plan names the files the committed batches read to their end (`cleanup`). */
  var cleaning = false

  /**
   * The node's answer, given what the driver tracks there and what it retired, and the files it
   * may remove (`cleanup`).
   */
  protected def scan(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Set[FileKey]): Seq[FileMeta]

  protected def readRange(range: FileRange): Unit

  /** How many rows were read so far. */
  protected def rowsRead: Int

  /** Bytes counted lost, by the planner or by a reader. */
  def lost: Long = plannedLoss + counters.bytesLost.value

  /** Whether a batch is planned and not read yet. */
  def pending: Boolean = planned.nonEmpty

  /** Plans the next batch, as a trigger does, unless one is planned and not read yet. */
  def plan(): Unit = if (planned.isEmpty) {
    val retired = Planner.retired(committed, host)
    val remove: Set[FileKey] =
      if (cleaning) Planner.removable(committed, committed, host).toSet else Set.empty
    val files = scan(Planner.known(committed, host), retired, remove)
    answers += 1
    val looked = Map(host -> CopiesLookedFor(s"answer-$answers", retired.keySet))
    val result = Planner.plan(committed, Map(host -> files), limits, looked)
    plannedLoss += result.losses.map(_.bytes).sum
    planned = Some(result.end)
  }

  /** Reads the planned batch, as its tasks do, and commits it. */
  def read(): Unit = planned.foreach { end =>
    Ranges.between(committed, end).foreach(readRange)
    committed = end
    planned = None
  }

  def trigger(): Unit = {
    read()
    plan()
    read()
  }

  /** Whether a trigger changes nothing and nothing waits for a copy. */
  def settled(): Boolean = {
    val before = (committed, rowsRead)
    trigger()
    before == ((committed, rowsRead)) && committed.hosts.values.forall(_.retired.isEmpty)
  }
}
