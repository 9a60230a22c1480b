package com.hx.spark.sql.connector.aof.endpoint

/** The times an endpoint keeps: how often it looks unasked, and how long a called look waits. */
object LookTimes {

  /**
   * How often an endpoint notes a change anyway while its directories are watched, at least: a
   * change a watch cannot tell (a file written over NFS, a watch lost) is seen within it.
   */
  val FallbackMs: Long = 60000L

  /**
   * The longest between two such looks: the first look of a run, which reads every file's head,
   * takes far longer than the next ones, which only stat them.
   */
  val FallbackMaxMs: Long = 600000L

  /**
   * How long after a look of every directory that took `wholeMs` the next is due: a thousand
   * times as long, so that such looks take a thousandth of the time, within the two above.
   */
  def fallbackAfterMs(wholeMs: Long): Long =
    math.min(math.max(FallbackMs, wholeMs * 1000), FallbackMaxMs)

  /** The same where they cannot be (no inotify, a directory not there yet). */
  val UnwatchedFallbackMs: Long = 1000L

  /**
   * How old the first change since the last look is, at least, when a look the driver called
   * for begins: a rotation's renames, compression and removal are most often done by then.
   */
  val SettleMs: Long = 100L
}
