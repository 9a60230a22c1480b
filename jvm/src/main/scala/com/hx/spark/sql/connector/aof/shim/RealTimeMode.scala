package com.hx.spark.sql.connector.aof.shim

import scala.util.Try

/**
 * Whether this Spark runs real-time mode and this JAR holds the stream for it: its classes
 * implement interfaces that came with Spark 4.1, so they are loaded only where those exist (the
 * 2.12 JAR has none, and Spark 4.0 lacks the interfaces). Spark tells a query with a real-time
 * trigger on a stream without the mode that the source does not support it.
 */
object RealTimeMode {
  private val SparkInterface = "org.apache.spark.sql.connector.read.streaming.SupportsRealTimeMode"

  /** The stream that adds real-time mode; built by reflection, as it may not be there. */
  val StreamClass = "com.hx.spark.sql.connector.aof.realtime.AofRealTimeStream"

  lazy val available: Boolean = loads(SparkInterface) && loads(StreamClass)

  private def loads(name: String): Boolean =
    Try(Class.forName(name, false, getClass.getClassLoader)).isSuccess
}
