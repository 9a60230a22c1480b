package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.{US_ASCII, UTF_8}
import java.util.UUID
import java.util.concurrent.{Callable, ExecutionException, Executors}

import org.apache.curator.framework.CuratorFramework
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import com.hx.spark.sql.connector.aof.protocol.{MessageSeal, ZkPaths}

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
   * The key that seals the query's journals ([[JournalSeal]]): in the checkpoint, which the
   * source trusts and ZooKeeper's other users cannot write, made at the query's first real-time
   * batch. Made under another name and renamed into place, so that two drivers racing (or a
   * crash) leave one whole key.
   */
  lazy val key: String = {
    val file = new Path(sourceCheckpoint, JournalCopies.KeyFile)
    if (!fs.exists(file)) {
      val made = new Path(sourceCheckpoint, s".${JournalCopies.KeyFile}-${UUID.randomUUID()}")
      val out = fs.create(made, false)
      try out.write(MessageSeal.newKey().getBytes(US_ASCII))
      finally out.close()
      if (!fs.rename(made, file)) fs.delete(made, false)
    }
    val in = fs.open(file)
    try scala.io.Source.fromInputStream(in, US_ASCII.name).mkString.trim
    finally in.close()
  }

  /**
   * Copies the journals of `hosts` into the checkpoint, each fenced first: a task still running
   * keeps no plan, so returns no line, that the copy lacks. All are fenced, then all read, each
   * step in one round trip.
   */
  def save(client: CuratorFramework, hosts: Iterable[String]): Unit = {
    val paths = hosts.map(host => host -> ZkPaths.journal(metaStore, host)).toMap
    ZkPlanJournal.fenceAll(client, paths.values)
    val texts = ZkPlanJournal.textsAll(client, paths.values)
    // A file a host: written a few at a time, as each waits on the file system.
    val writers = Executors.newFixedThreadPool(JournalCopies.Writers)
    try {
      val written = paths.toSeq.flatMap { case (host, path) =>
        texts(path).map { case (start, plans) =>
          writers.submit(new Callable[Unit] {
            override def call(): Unit = {
              val out = fs.create(fileOf(host), true)
              // Offset JSON is written on one line.
              try out.write(s"$start\n$plans".getBytes(UTF_8))
              finally out.close()
            }
          })
        }
      }
      written.foreach { w =>
        try w.get()
        catch { case e: ExecutionException => throw e.getCause }
      }
    } finally writers.shutdown()
  }

  /**
   * Puts back into ZooKeeper the journals of `hosts` that the checkpoint holds and it does not.
   * The checkpoint is looked at only for those ZooKeeper lacks, in one listing.
   */
  def restore(client: CuratorFramework, hosts: Iterable[String]): Unit = {
    val paths = hosts.map(host => host -> ZkPaths.journal(metaStore, host)).toMap
    val present = ZkPlanJournal.existing(client, paths.values)
    restoreLacking(client, paths.filterNot { case (_, path) => present(path) })
  }

  /**
   * Opens the journals of a batch's hosts ([[ZkPlanJournal.openAll]]), those ZooKeeper lacks put
   * back first from the checkpoint: asked before every batch, of all hosts at once, in one round
   * trip when ZooKeeper lacks none. Returns each host's version.
   */
  def open(client: CuratorFramework, hosts: Iterable[String]): Map[String, Int] =
    ZkPlanJournal.openAll(client, metaStore, hosts, restoreLacking(client, _))

  private def restoreLacking(client: CuratorFramework, lacking: Map[String, String]): Unit =
    if (lacking.nonEmpty) {
      val copied =
        if (!fs.exists(dir)) Set.empty[String] else fs.listStatus(dir).map(_.getPath.getName).toSet
      ZkPlanJournal.storeAll(
        client,
        lacking.collect {
          case (host, path) if copied(fileOf(host).getName) => path -> read(fileOf(host))
        })
    }

  private def read(file: Path): (String, String) = {
    val in = fs.open(file)
    val text =
      try scala.io.Source.fromInputStream(in, UTF_8.name).mkString
      finally in.close()
    val (start, plans) = text.span(_ != '\n')
    (start, plans.drop(1))
  }
}

object JournalCopies {
  private val Writers = 8
  private val KeyFile = "journal-key"
}
