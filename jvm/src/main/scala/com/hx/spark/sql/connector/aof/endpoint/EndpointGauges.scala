package com.hx.spark.sql.connector.aof.endpoint

import com.hx.spark.sql.connector.aof.metrics.{
  ExecutorReads, GaugeGroup, Gauges, MetricDefinition, MetricDefinitions => M
}

/**
 * An endpoint's gauges in Spark's metrics system (`spark.plugins`): its looks, whether it serves,
 * and the reads on its executor. Each figure is named once, beside what reads it.
 */
private[endpoint] final class EndpointGauges(
    metaStore: String,
    looks: EndpointLooks,
    serving: () => Boolean) {
  private val figures: Seq[(MetricDefinition, () => Long)] = Seq(
    M.FilesWatched -> (() => looks.filesWatched),
    M.LookMs -> (() => looks.lookMs),
    M.Looks -> (() => looks.looks),
    M.Serving -> (() => if (serving()) 1L else 0L),
    M.LinesRead -> (() => ExecutorReads.lines(metaStore)),
    M.BytesRead -> (() => ExecutorReads.bytes(metaStore))
  )
  private val group: GaugeGroup = Gauges.group(
    s"endpoint.${Gauges.part(metaStore)}",
    () => figures.map { case (definition, figure) => definition.name -> figure() }.toMap)

  /** Shown from now on. */
  def start(): Unit = group.sync(figures.map(_._1.name).toSet)

  def close(): Unit = group.close()
}
