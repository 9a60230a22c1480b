package com.hx.spark.sql.connector.aof.shim

import java.util.UUID

import scala.util.Try

import org.apache.spark.sql.SparkSession

/**
 * The name of the streaming query whose thread asks, or its id: what names its gauges. Spark
 * keeps the query's id in a local property of that thread under a key of its own
 * (`StreamExecution.QUERY_ID_KEY`), not a public constant: `MetricsPluginSuite` fails if it
 * changes. The query runs in a copy of the session it was started from, whose own list of
 * queries is empty; the session it came from is, as a rule, the default one.
 */
object QueryName {
  private val QueryIdKey = "sql.streaming.queryId"

  /** The query's name, its id when it has none; None while no session lists it yet. */
  def of(spark: SparkSession): Option[String] = {
    val id = Option(spark.sparkContext.getLocalProperty(QueryIdKey))
    val uuid = id.flatMap(text => Try(UUID.fromString(text)).toOption)
    val sessions = Seq(Some(spark), SparkSession.getDefaultSession).flatten.distinct
    val query = uuid.flatMap(u => sessions.flatMap(s => Option(s.streams.get(u))).headOption)
    query.map(q => Option(q.name).getOrElse(q.id.toString))
  }

  /** The query's id, for a query no session lists. */
  def id(spark: SparkSession): String =
    Option(spark.sparkContext.getLocalProperty(QueryIdKey)).getOrElse("unknown")
}
