package com.hx.spark.sql.connector.aof.backlog

import com.hx.spark.sql.connector.aof.metrics.MetricDefinitions._
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.News

/** The backlog's figures, from the hosts' answers and the offsets read up to. */
object SourceMetrics {

  /** The names of [[of]]'s figures, without working them out: a host's for each host. */
  def names(news: News): Set[String] =
    Set(BytesBehind.name, SecondsBehind.name, FilesTracked.name, FilesIgnored.name) ++
      news.everyHost.keysIterator.flatMap(h => PerHost.map(_.forHost(h)))

  private val PerHost = Seq(BytesBehindHost, SecondsBehindHost)

  /** Bytes and seconds behind, per host and in all, and the files tracked and ignored. */
  def of(
      consumed: AofOffset,
      news: News,
      writeTimes: WriteTimes,
      nowMs: Long): Map[String, Long] = {
    val byHost = news.everyHost.map { case (host, files) =>
      val (bytes, oldest) = writeTimes.backlog(host, files, consumed.hosts.get(host))
      host -> ((bytes, oldest.fold(0L)(t => math.max(0L, nowMs - t) / 1000L)))
    }
    Map(
      BytesBehind.name -> byHost.values.map(_._1).sum,
      SecondsBehind.name -> byHost.values.map(_._2).foldLeft(0L)(_ max _),
      FilesTracked.name -> consumed.hosts.values.map(_.files.size).sum.toLong,
      FilesIgnored.name -> news.ignored.values.sum.toLong
    ) ++ byHost.flatMap { case (host, (bytes, seconds)) =>
      Seq(BytesBehindHost.forHost(host) -> bytes, SecondsBehindHost.forHost(host) -> seconds)
    }
  }
}
