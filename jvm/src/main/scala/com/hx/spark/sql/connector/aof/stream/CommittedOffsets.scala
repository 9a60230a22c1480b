package com.hx.spark.sql.connector.aof.stream

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.streaming.{CommitLog, OffsetSeqLog}

/**
 * The last offset of this source that the query committed, read from the checkpoint with Spark's
 * own logs. Spark tells a source about batch N only when it starts batch N + 1, so when a query
 * stops this is the only way to learn whether its last batch was committed.
 *
 * @param sourceCheckpoint the location Spark gives the source: `<checkpoint>/sources/<index>`
 */
final class CommittedOffsets(spark: SparkSession, sourceCheckpoint: String) {
  private val sourceDir = new Path(sourceCheckpoint)
  private val root = sourceDir.getParent.getParent
  private val index = scala.util.Try(sourceDir.getName.toInt).getOrElse(0)

  def latestJson(): Option[String] = {
    val commits = new CommitLog(spark, new Path(root, "commits").toString)
    commits
      .getLatest()
      .flatMap { case (batchId, _) =>
        new OffsetSeqLog(spark, new Path(root, "offsets").toString).get(batchId)
      }
      .flatMap(_.offsets.lift(index).flatten)
      .map(_.json)
  }
}
