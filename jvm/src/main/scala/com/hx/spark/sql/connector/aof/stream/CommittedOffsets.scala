package com.hx.spark.sql.connector.aof.stream

import java.io.FileNotFoundException
import java.nio.charset.StandardCharsets.UTF_8

import scala.io.Source
import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * The last offset of this source that the query committed, read from the checkpoint's files.
 * Spark tells a source about batch N only when it starts batch N + 1, so when a query stops this
 * is the only way to learn whether its last batch was committed.
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

  def latestJson(): Option[String] =
    for {
      i <- index
      batch <- latestBatch(new Path(root, "commits"))
      lines <- linesOf(new Path(new Path(root, "offsets"), batch.toString))
      if lines.headOption.contains("v1")
      json <- lines.lift(2 + i)
      if json != "-"
    } yield json

  private def latestBatch(dir: Path): Option[Long] =
    try {
      val batches = fs.listStatus(dir).map(_.getPath.getName).filter(_.forall(_.isDigit))
      if (batches.isEmpty) None else Some(batches.map(_.toLong).max)
    } catch { case _: FileNotFoundException => None }

  private def linesOf(file: Path): Option[Vector[String]] =
    try {
      val source = Source.fromInputStream(fs.open(file), UTF_8.name)
      try Some(source.getLines().toVector)
      finally source.close()
    } catch { case _: FileNotFoundException => None }
}
