package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.curator.framework.CuratorFramework
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import com.hx.spark.sql.connector.aof.protocol.ZkPaths

/**
 * The plan journals ([[ZkPlanJournal]]) of a real-time query, copied into the checkpoint when it
 * stops, and back into ZooKeeper before its next batch starts: the embedded ZooKeeper server
 * keeps nothing once its driver stops; the checkpoint does. One file per host,
 * `<source checkpoint>/realtime/<host>`: the journal's start on the first line, its plans after.
 *
 * @param sourceCheckpoint the location Spark gives the source: `<checkpoint>/sources/<index>`
 */
final class JournalCopies(hadoopConf: Configuration, sourceCheckpoint: String, metaStore: String) {
  private val dir = new Path(sourceCheckpoint, "realtime")
  private val fs = dir.getFileSystem(hadoopConf)

  private def fileOf(host: String): Path = new Path(dir, ZkPaths.encode(host))

  /**
   * Copies the journals of `hosts` into the checkpoint, each fenced first: a task still running
   * keeps no plan, so returns no line, that the copy lacks.
   */
  def save(client: CuratorFramework, hosts: Iterable[String]): Unit =
    hosts.foreach { host =>
      val path = ZkPaths.journal(metaStore, host)
      ZkPlanJournal.fence(client, path)
      ZkPlanJournal.texts(client, path).foreach { case (start, plans) =>
        val out = fs.create(fileOf(host), true)
        // Offset JSON is written on one line.
        try out.write(s"$start\n$plans".getBytes(UTF_8))
        finally out.close()
      }
    }

  /** Puts back into ZooKeeper the journals of `hosts` that the checkpoint holds and it does not. */
  def restore(client: CuratorFramework, hosts: Iterable[String]): Unit =
    hosts.foreach { host =>
      val path = ZkPaths.journal(metaStore, host)
      val file = fileOf(host)
      if (!ZkPlanJournal.exists(client, path) && fs.exists(file)) {
        val in = fs.open(file)
        val text =
          try scala.io.Source.fromInputStream(in, UTF_8.name).mkString
          finally in.close()
        val (start, plans) = text.span(_ != '\n')
        ZkPlanJournal.store(client, path, start, plans.drop(1))
      }
    }
}
