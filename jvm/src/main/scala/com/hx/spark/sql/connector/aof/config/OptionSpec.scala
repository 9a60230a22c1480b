package com.hx.spark.sql.connector.aof.config

/**
 * One documented source option. Every option the source reads is listed in `options.json`,
 * which code, the Python package and the generated options table all read: they cannot drift.
 */
final case class OptionSpec(key: String, default: String, doc: String) {
  def sessionKey: String = OptionSpec.SessionPrefix + key
}

object OptionSpec {
  val SessionPrefix: String = "spark.aof."
}
