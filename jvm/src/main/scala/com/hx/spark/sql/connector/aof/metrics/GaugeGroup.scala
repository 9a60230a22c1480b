package com.hx.spark.sql.connector.aof.metrics

import com.codahale.metrics.{Gauge, MetricRegistry}

/**
 * Gauges registered as their figures appear (a host first heard of) and removed as they go (a
 * host gone, the query stopped). Each reads its figure at each scrape. Of two groups with the
 * same names in one JVM (a query's next run whose endpoint starts before the last one's has
 * closed), the newer shows, and the older's closing leaves it there.
 */
final class GaugeGroup(
    registry: Option[MetricRegistry],
    prefix: String,
    figures: () => Map[String, Long]) {
  private var mine = Map.empty[String, Gauge[Long]]

  /** Gauges for exactly these figures' names from now on. */
  def sync(now: Set[String]): Unit = registry.foreach { r =>
    synchronized {
      (mine.keySet -- now).foreach { n =>
        val name = MetricRegistry.name(prefix, n)
        if (r.getGauges.get(name) eq mine(n)) r.remove(name)
      }
      val added = (now -- mine.keySet).toSeq.map { n =>
        val gauge = new Gauge[Long] { override def getValue: Long = figures().getOrElse(n, 0L) }
        val name = MetricRegistry.name(prefix, n)
        r.remove(name)
        r.register(name, gauge)
        n -> gauge
      }
      mine = mine.filter { case (n, _) => now(n) } ++ added
    }
  }

  def close(): Unit = sync(Set.empty)
}
