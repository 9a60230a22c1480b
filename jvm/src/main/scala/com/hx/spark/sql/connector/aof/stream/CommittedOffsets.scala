package com.hx.spark.sql.connector.aof.stream

import java.io.FileNotFoundException
import java.nio.charset.StandardCharsets.UTF_8

import scala.annotation.tailrec
import scala.io.Source
import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import com.hx.spark.sql.connector.aof.offset.{OffsetJson, OffsetSnapshots}

/**
 * The last offset of this source that the query committed, and the oldest Spark's offset log
 * keeps, read from the checkpoint's files. Spark tells a source about batch N only when it starts
 * batch N + 1, so when a query stops this is the only way to learn whether its last batch was
 * committed.
 *
 * The files are read with Hadoop's FileSystem, not with Spark's log classes: those are internal
 * and moved between Spark versions (4.1), while the files are a format every Spark version must
 * read back from older checkpoints: `commits/<batch>` once a batch is committed, and
 * `offsets/<batch>` holding "v1", a metadata line, then one line per source in source order (an
 * offset's JSON, or "-"). Anything else (a newer format) reads as nothing: no backup, no guess.
 *
 * @param sourceCheckpoint the location Spark gives the source: `<checkpoint>/sources/<index>`
 */
final class CommittedOffsets(hadoopConf: Configuration, sourceCheckpoint: String) {
  private val sourceDir = new Path(sourceCheckpoint)
  private val root = sourceDir.getParent.getParent
  private val index = Try(sourceDir.getName.toInt).toOption
  private val fs = root.getFileSystem(hadoopConf)
  @volatile private var lastWhole: Option[(String, String)] = None
  // The last commit found, with this source's offset in it.
  @volatile private var lastCommit: Option[(Long, Option[String])] = None

  /** The last committed offset, written whole (the checkpoint's is on a snapshot). */
  def latestWholeJson(snapshots: OffsetSnapshots): Option[String] = latestJson().map { json =>
    val whole = lastWhole.filter(_._1 == json).getOrElse {
      json -> OffsetJson.read(json, snapshots.read).whole.json()
    }
    lastWhole = Some(whole)
    whole._2
  }

  def latestJson(): Option[String] = {
    val commits = new Path(root, "commits")
    // From the last commit found, the next names are asked for: the log is listed only the
    // first time, or when that commit is gone. A listing is a hundred files and their checksums,
    // or a request to an object store, at every trigger.
    val latest = lastCommit.map(_._1).filter(has(commits, _)) match {
      case Some(known) => Some(lastOf(commits, known))
      case None => latestBatch(commits)
    }
    val json = latest.flatMap(b => lastCommit.filter(_._1 == b).fold(offsetOf(b))(_._2))
    lastCommit = latest.map(_ -> json)
    json
  }

  @tailrec private def lastOf(dir: Path, batch: Long): Long =
    if (has(dir, batch + 1)) lastOf(dir, batch + 1) else batch

  private def has(dir: Path, batch: Long): Boolean = fs.exists(new Path(dir, batch.toString))

  /** This source's offset in the oldest batch Spark's offset log still holds. */
  def oldestJson(): Option[String] =
    batches(new Path(root, "offsets")).headOption.flatMap(offsetOf)

  private def offsetOf(batch: Long): Option[String] =
    for {
      i <- index
      lines <- linesOf(new Path(new Path(root, "offsets"), batch.toString))
      if lines.headOption.contains("v1")
      json <- lines.lift(2 + i)
      if json != "-"
    } yield json

  private def latestBatch(dir: Path): Option[Long] = batches(dir).lastOption

  private def batches(dir: Path): Seq[Long] =
    try
      fs.listStatus(dir)
        .toSeq
        .map(_.getPath.getName)
        .filter(_.forall(_.isDigit))
        .map(_.toLong)
        .sorted
    catch { case _: FileNotFoundException => Nil }

  private def linesOf(file: Path): Option[Vector[String]] =
    try {
      val source = Source.fromInputStream(fs.open(file), UTF_8.name)
      try Some(source.getLines().toVector)
      finally source.close()
    } catch { case _: FileNotFoundException => None }
}
