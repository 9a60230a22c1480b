package com.hx.spark.sql.connector.aof.config

import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity
import com.hx.spark.sql.connector.aof.files.lines.LineEnding
import com.hx.spark.sql.connector.aof.files.records.RecordRule
import com.hx.spark.sql.connector.aof.files.rows.{FileHeader, PathColumns}
import com.hx.spark.sql.connector.aof.journal.JournalRead

/**
 * How a query's files become rows, the same on every node: built once from the options and
 * carried whole to the endpoints and the read tasks, so an option they use reaches them in this
 * one value.
 *
 * @param identity      how a file is told from what was known of it (`md5.check.enabled`), on
 *                      the node and in the reader as in the planner
 * @param lineLengthMax the longest line kept whole (`line.length.max`); longer ones are cut
 * @param grouping      how lines group into rows: a runtime's chunks into messages, and lines
 *                      or messages into multi-line records; None for a row a line
 * @param lineFilter    which lines (or records) are kept, when not all are
 * @param pathColumns   the columns taken from a file's path (`path.columns`)
 * @param header        the lines at a file's head that are its header, not rows (`header.lines`)
 * @param ending        how the files' bytes are lines (`encoding`, `line.separator`)
 * @param journal       which entries become rows when the source reads the systemd journal
 *                      (`format` `journald`), not lines: then nothing above applies
 */
final case class ReadSettings(
    identity: FileIdentity = FileIdentity(checked = true),
    lineLengthMax: Int = ReadSettings.LineLengthMax,
    grouping: Option[RecordRule] = None,
    lineFilter: Option[LineFilter] = None,
    pathColumns: Option[PathColumns] = None,
    header: Option[FileHeader] = None,
    ending: LineEnding = LineEnding.Default,
    journal: Option[JournalRead] = None)

object ReadSettings {

  /** `line.length.max`'s default. */
  val LineLengthMax: Int = AofOptionSpecs.LineLengthMax.default.toInt
}
