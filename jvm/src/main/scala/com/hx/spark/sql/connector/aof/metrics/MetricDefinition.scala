package com.hx.spark.sql.connector.aof.metrics

/**
 * Where a metric shows: in each `StreamingQueryProgress` (`sources[].metrics`), as a gauge of
 * the driver's metrics registry (per query), as a gauge of an endpoint's node (per endpoint), or
 * on the scan's node of the Spark UI's SQL tab (per batch).
 */
sealed abstract class Place(val title: String)

object Place {
  case object Progress extends Place("progress")
  case object QueryGauge extends Place("query gauge")
  case object EndpointGauge extends Place("endpoint gauge")
  case object SparkUi extends Place("Spark UI")
  val All: Seq[Place] = Seq(Progress, QueryGauge, EndpointGauge, SparkUi)
}

/**
 * One metric: its name (`<host>` stands for each host's name), where it shows, and what it
 * means. A name ending in `.<host>` is one metric per host.
 */
final case class MetricDefinition(name: String, places: Set[Place], meaning: String) {
  def in(place: Place): Boolean = places.contains(place)

  /** Its name for one host, for a per-host metric. */
  def forHost(host: String): String = name.replace(MetricDefinitions.Host, host)

  def perHost: Boolean = name.contains(MetricDefinitions.Host)
}
