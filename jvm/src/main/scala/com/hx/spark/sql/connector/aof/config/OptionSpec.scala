package com.hx.spark.sql.connector.aof.config

/**
 * One documented source option. Every option the source reads is listed in [[AofOptionSpecs]],
 * which is also what the generated options table is made from: code and docs cannot drift apart.
 */
final case class OptionSpec(key: String, default: String, doc: String) {
  def sessionKey: String = OptionSpec.SessionPrefix + key
}

object OptionSpec {
  val SessionPrefix: String = "spark.aof."
}
