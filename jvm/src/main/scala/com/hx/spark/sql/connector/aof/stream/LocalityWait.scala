package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.SparkConf

/**
 * This source's tasks must run on the host that holds their file. Spark waits for a free slot on
 * the preferred host for the node-locality wait, then places the task anywhere, where it fails
 * (and is retried). Shorter than Spark's own default of 3 s, that happens on every busy trigger.
 */
object LocalityWait {
  val MinimumMs: Long = 3000L

  /** The warning to log when the query starts, if the configured wait is too short. */
  def warning(conf: SparkConf): Option[String] = {
    if (conf.get("spark.master", "local").startsWith("local")) return None
    val key = Seq("spark.locality.wait.node", "spark.locality.wait").find(conf.contains)
    val waitMs = key.fold(MinimumMs)(conf.getTimeAsMs)
    if (waitMs >= MinimumMs) None
    else {
      Some(
        s"aof: ${key.get} is $waitMs ms: Spark may then run this source's tasks on hosts that do " +
          "not hold their files, where they fail and are retried. Set spark.locality.wait (and " +
          s"spark.locality.wait.node, if set) to ${MinimumMs / 1000}s or more; 30s on busy clusters.")
    }
  }
}
