package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.curator.framework.CuratorFramework
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import com.hx.spark.sql.connector.aof.offset.HostOffsets
import com.hx.spark.sql.connector.aof.protocol.ZkPaths

/**
 * The plan journals ([[ZkPlanJournal]]) of a real-time batch that did not end, copied into the
 * checkpoint when the query stops, and back into ZooKeeper before its tasks start again. The
 * embedded ZooKeeper server keeps nothing once its driver stops; the checkpoint does. One file
 * per host, `<source checkpoint>/realtime/<host>-<start>`, a stored plan per line.
 *
 * @param sourceCheckpoint the location Spark gives the source: `<checkpoint>/sources/<index>`
 */
final class JournalCopies(hadoopConf: Configuration, sourceCheckpoint: String, metaStore: String) {
  private val dir = new Path(sourceCheckpoint, "realtime")
  private val fs = dir.getFileSystem(hadoopConf)

  private def fileOf(host: String, start: Option[HostOffsets]): Path =
    new Path(dir, s"${ZkPaths.encode(host)}-${ZkPlanJournal.digest(host, start)}")

  /**
   * Copies the journals of the tasks that start at `starts` into the checkpoint, fenced first:
   * a task still running keeps no plan, so returns no line, that the copy lacks.
   */
  def save(client: CuratorFramework, starts: Map[String, Option[HostOffsets]]): Unit =
    starts.foreach { case (host, start) =>
      val path = ZkPlanJournal.pathOf(metaStore, host, start)
      ZkPlanJournal.fence(client, path)
      val entries = ZkPlanJournal.entries(client, path)
      if (entries.nonEmpty) {
        val out = fs.create(fileOf(host, start), true)
        // Each a line: stored plans are JSON written on one line.
        try entries.foreach(e => out.write(e :+ '\n'.toByte))
        finally out.close()
      }
    }

  /**
   * Puts back into ZooKeeper the journals the checkpoint holds for `starts` and ZooKeeper does
   * not, and removes the checkpoint's others: those batches were committed.
   */
  def restore(client: CuratorFramework, starts: Map[String, Option[HostOffsets]]): Unit = {
    if (!fs.exists(dir)) return
    val wanted = starts.map { case (host, start) => fileOf(host, start).getName -> (host, start) }
    fs.listStatus(dir).map(_.getPath).foreach { file =>
      wanted.get(file.getName) match {
        case Some((host, start)) =>
          val path = ZkPlanJournal.pathOf(metaStore, host, start)
          if (ZkPlanJournal.entries(client, path).isEmpty) {
            val in = fs.open(file)
            val lines =
              try scala.io.Source.fromInputStream(in, UTF_8.name).getLines().toList
              finally in.close()
            lines
              .filter(_.nonEmpty)
              .foreach(l => ZkPlanJournal.append(client, path, l.getBytes(UTF_8)))
          }
        case None => fs.delete(file, false)
      }
    }
  }
}
