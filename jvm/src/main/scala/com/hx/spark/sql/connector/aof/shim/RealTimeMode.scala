package com.hx.spark.sql.connector.aof.shim

import scala.util.Try

/**
 * Whether this Spark runs real-time mode: its interfaces came with Spark 4.1, so the classes that
 * implement them (the 2.13 JAR's `realtime` package) are loaded only where those exist. Spark
 * tells a query with a real-time trigger on a stream without the mode that the source does not
 * support it.
 */
object RealTimeMode {
  lazy val inSpark: Boolean =
    loads("org.apache.spark.sql.connector.read.streaming.SupportsRealTimeMode")

  /** Whether the class `name` is there to load (not loading it yet). */
  def loads(name: String): Boolean =
    Try(Class.forName(name, false, getClass.getClassLoader)).isSuccess
}
