package com.hx.spark.sql.connector.aof

import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType, TimestampType}

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.read.JournalBatch

/**
 * The rows the source emits: `(host, file_id, offset)` names a line uniquely and stably;
 * `timestamp` is when the source first planned the line's bytes, the same in a replay. A
 * container runtime's lines (`format`) add the `stream` and `time` the runtime wrote, and
 * `path.columns` a column for each of its groups, and `header.lines` the `header` column (null
 * for a file without one); the order is that of
 * [[com.hx.spark.sql.connector.aof.read.LineBatch]]'s columns. The journal's entries (`format`
 * `journald`) have columns of their own after the first six ([[JournalBatch]]).
 */
object AofSchema {
  val Schema: StructType = StructType(
    Seq(
      StructField("value", StringType, nullable = false),
      StructField("host", StringType, nullable = false),
      StructField("path", StringType, nullable = false),
      StructField("offset", LongType, nullable = false),
      StructField("file_id", StringType, nullable = false),
      StructField("timestamp", TimestampType, nullable = false)
    ))

  /** A journal's entries (`format` `journald`): [[JournalBatch]]'s columns. */
  private val Journal: StructType = StructType(Schema.fields.toSeq ++ JournalBatch.Columns.map {
    case (name, kind) =>
      StructField(name, kind, nullable = !Set("time", "boot_id", "cursor", "fields")(name))
  })

  private val Runtime: Seq[StructField] =
    Seq(StructField("stream", StringType), StructField("time", TimestampType))

  /**
   * The rows of a source with `options`.
   *
   * @throws IllegalArgumentException when a path column would take a column's name
   */
  def of(options: AofOptions): StructType = {
    if (options.read.journal.nonEmpty) return Journal
    val runtime = if (options.read.grouping.exists(_.format.byRuntime)) Runtime else Nil
    val fromPath = options.read.pathColumns.toSeq.flatMap(_.names).map(StructField(_, StringType))
    val header = options.read.header.map(_ => StructField("header", StringType)).toSeq
    val taken = (Schema.fields.toSeq ++ runtime ++ header).map(_.name).toSet
    fromPath.map(_.name).find(taken).foreach { name =>
      throw new IllegalArgumentException(
        s"Option 'path.columns' names a group '$name', which is a column of the source's " +
          s"rows already (${taken.toSeq.sorted.mkString(", ")}): give the group another name.")
    }
    StructType(Schema.fields.toSeq ++ runtime ++ header ++ fromPath)
  }
}
