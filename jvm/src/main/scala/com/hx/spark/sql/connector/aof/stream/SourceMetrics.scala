package com.hx.spark.sql.connector.aof.stream

import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.Reports

/** Figures shown in `StreamingQueryProgress.sources[].metrics`. */
object SourceMetrics {

  def of(
      consumed: AofOffset,
      reports: Reports,
      hostsWithoutEndpoint: Set[String]): Map[String, String] = {
    val behindByHost = reports.files.map { case (host, files) =>
      val positions =
        consumed.hosts.get(host).toSeq.flatMap(_.files.values).map(f => f.key -> f.pos)
      val byKey = positions.toMap
      host -> files.map(m => math.max(0L, m.size - byKey.getOrElse(m.key, 0L))).sum
    }
    Map(
      "bytesBehindLatest" -> behindByHost.values.sum.toString,
      "filesTracked" -> consumed.hosts.values.map(_.files.size).sum.toString,
      "filesIgnored" -> reports.ignored.values.sum.toString,
      "hostsWithoutEndpoint" -> hostsWithoutEndpoint.size.toString
    ) ++
      behindByHost.map { case (host, behind) => s"bytesBehindLatest.$host" -> behind.toString }
  }
}
