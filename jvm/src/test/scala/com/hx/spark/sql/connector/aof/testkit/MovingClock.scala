package com.hx.spark.sql.connector.aof.testkit

import java.time.{Clock, Instant, ZoneId, ZoneOffset}

/**
 * The system's clock, moved forward on demand: code that decides by how long a file has been
 * quiet sees that time pass at once, where a test would otherwise sleep for it. It starts at the
 * system's time because file times are the system's.
 */
final class MovingClock extends Clock {
  @volatile private var aheadMs = 0L

  def advance(ms: Long): Unit = aheadMs += ms

  override def millis(): Long = System.currentTimeMillis() + aheadMs
  override def instant(): Instant = Instant.ofEpochMilli(millis())
  override def getZone: ZoneId = ZoneOffset.UTC
  override def withZone(zone: ZoneId): Clock = this
}
