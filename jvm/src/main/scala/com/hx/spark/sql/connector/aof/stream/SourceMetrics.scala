package com.hx.spark.sql.connector.aof.stream

import com.hx.spark.sql.connector.aof.files.FileMeta
import com.hx.spark.sql.connector.aof.offset.AofOffset

/** Figures shown in `StreamingQueryProgress.sources[].metrics`. */
object SourceMetrics {

  def of(
      consumed: AofOffset,
      reports: Map[String, Seq[FileMeta]],
      hostsWithoutEndpoint: Set[String]): Map[String, String] = {
    val behindByHost = reports.map { case (host, files) =>
      val positions =
        consumed.hosts.get(host).toSeq.flatMap(_.files.values).map(f => f.key -> f.pos)
      val byKey = positions.toMap
      host -> files.map(m => math.max(0L, m.size - byKey.getOrElse(m.key, 0L))).sum
    }
    Map(
      "bytesBehindLatest" -> behindByHost.values.sum.toString,
      "filesTracked" -> consumed.hosts.values.map(_.files.size).sum.toString,
      "hostsWithoutEndpoint" -> hostsWithoutEndpoint.size.toString
    ) ++
      behindByHost.map { case (host, behind) => s"bytesBehindLatest.$host" -> behind.toString }
  }
}
