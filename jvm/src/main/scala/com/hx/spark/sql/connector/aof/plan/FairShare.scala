package com.hx.spark.sql.connector.aof.plan

/**
 * How `batch.bytes.max` is shared over the files with bytes to read: max-min fairly, as a
 * water level. Files wanting less than an even share get all they want; what they leave is
 * shared evenly over the others. A quiet file is not held behind a busy one, and a busy host does
 * not starve another: every file wanting bytes gets at least one (its range then holds the whole
 * line starting there), so each moves on at every trigger even when files outnumber bytes.
 */
object FairShare {

  /**
   * The bytes each key gets of `total`, for the bytes each `wants`. The same wants in the same
   * order give the same shares.
   */
  def of[K](wants: Seq[(K, Long)], total: Long): Map[K, Long] = {
    var left = total
    var others = wants.count(_._2 > 0)
    wants
      .filter(_._2 > 0)
      .sortBy(_._2) // stable: equal wants keep their given order
      .map { case (key, wanted) =>
        val granted = math.min(wanted, math.max(1L, left / others))
        left = math.max(0L, left - granted)
        others -= 1
        key -> granted
      }
      .toMap
  }
}
