package com.hx.spark.sql.connector.aof.metrics

import scala.collection.JavaConverters._

import com.codahale.metrics.{Gauge, MetricRegistry}

/**
 * This JVM's registry for the source's gauges: the one Spark gave the plugin ([[MetricsPlugin]])
 * here, which Spark's metrics system shows to every sink (Prometheus, JMX, Graphite, CSV).
 * Without the plugin there is none, and groups register nothing.
 */
object Gauges {
  @volatile private var registry: Option[MetricRegistry] = None

  /**
   * From now on gauges go to `r`. Spark shows a plugin's registry only if it holds a metric once
   * the plugin started: two are there from the start, the queries and the endpoints running here.
   */
  def use(r: MetricRegistry): Unit = {
    def count(kind: String, each: MetricDefinition) = new Gauge[Long] {
      override def getValue: Long =
        r.getNames.asScala.count(n => n.startsWith(kind) && n.endsWith("." + each.name)).toLong
    }
    r.register(MetricDefinitions.Queries.name, count("query.", MetricDefinitions.PlanningMs))
    r.register(MetricDefinitions.Endpoints.name, count("endpoint.", MetricDefinitions.Serving))
    registry = Some(r)
  }

  /** Whether the plugin runs here: without it no gauge is shown. */
  def enabled: Boolean = registry.nonEmpty

  /** Spark stopped the plugin's context: its registry shows nothing any more. */
  def forget(r: MetricRegistry): Unit = if (registry.contains(r)) registry = None

  /** The gauges named `<prefix>.<name>` of one query or endpoint, each read from `figures`. */
  def group(prefix: String, figures: () => Map[String, Long]): GaugeGroup =
    new GaugeGroup(registry, prefix, figures)

  /** A name part made of what every sink keeps: letters, digits, `_` and `-`. */
  def part(name: String): String = name.replaceAll("[^A-Za-z0-9_-]", "_")
}
