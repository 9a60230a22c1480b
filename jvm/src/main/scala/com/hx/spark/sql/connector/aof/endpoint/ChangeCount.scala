package com.hx.spark.sql.connector.aof.endpoint

/**
 * A node's count of changes: what its endpoint tells the driver between looks. The first change
 * noted after a look raises the count, which the endpoint writes for the driver to see; later
 * ones say nothing until the next look, which sees them all. A look carries the count it began
 * at, so the driver knows which changes it saw. Used by the endpoint's worker only.
 */
private[aof] final class ChangeCount {
  private var count = 0L
  private var noted = false
  private var seen = 0L
  // When the first change since the last look was noted (ms, the caller's clock).
  private var firstAtMs = 0L

  /** A change at `nowMs`: the count to write when it is the first since the last look. */
  def note(nowMs: Long): Option[Long] =
    if (noted) None
    else {
      noted = true
      firstAtMs = nowMs
      count += 1
      Some(count)
    }

  /**
   * How long a look called for at `nowMs` waits, so that it comes `settleMs` after the first
   * change since the last look: a rotation's rename, compression and removal are seen done.
   */
  def settling(nowMs: Long, settleMs: Long): Long =
    if (noted) math.max(0L, firstAtMs + settleMs - nowMs) else 0L

  /** The count `note` gave could not be written: the next change writes it again. */
  def unwritten(): Unit = noted = false

  /** A look begins: it sees every change noted so far. The count it sees. */
  def looking(): Long = {
    seen = count
    noted = false
    seen
  }

  /** The count the last look saw, which its answers carry. */
  def seenByLastLook: Long = seen
}
