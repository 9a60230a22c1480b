package com.hx.spark.sql.connector.aof

import java.util.{Collections, Map => JMap}

import org.apache.spark.SparkContext
import org.apache.spark.api.plugin.{DriverPlugin, ExecutorPlugin, PluginContext, SparkPlugin}

import com.hx.spark.sql.connector.aof.metrics.Gauges

/**
 * The source's gauges in Spark's metrics system (`spark.plugins`): each query's on the driver,
 * each endpoint's on its executor, shown by every sink configured (the PrometheusServlet, JMX,
 * Graphite, CSV). Without it the source runs the same, its figures in the query's progress only.
 *
 * In local mode the executor shares the driver's JVM and metrics system, where Spark would
 * register a second registry under the same name and drop it: there the driver's registry takes
 * the endpoints' gauges too.
 */
class MetricsPlugin extends SparkPlugin {
  override def driverPlugin(): DriverPlugin = {
    MetricsPlugin.driverHere = true
    new DriverPlugin {
      @volatile private var ctx: Option[PluginContext] = None

      override def init(sc: SparkContext, context: PluginContext): JMap[String, String] = {
        ctx = Some(context)
        Gauges.use(context.metricRegistry())
        Collections.emptyMap()
      }

      override def shutdown(): Unit = ctx.foreach(c => Gauges.forget(c.metricRegistry()))
    }
  }

  override def executorPlugin(): ExecutorPlugin =
    if (MetricsPlugin.driverHere) null
    else
      new ExecutorPlugin {
        override def init(context: PluginContext, extraConf: JMap[String, String]): Unit =
          Gauges.use(context.metricRegistry())
      }
}

object MetricsPlugin {
  // Spark makes the driver's plugins before it starts an executor in the same JVM.
  @volatile private var driverHere = false
}
