package com.hx.spark.sql.connector.aof.config

import com.hx.spark.sql.connector.aof.config.{AofOptionSpecs => O}
import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.journal.JournalRead

/**
 * `format` `journald`: the journal's options, and the refusal of those that say how a file's
 * bytes become lines, which a journal's entries are not.
 */
private[config] object JournalOptions {
  val Journald = "journald"

  /** Where journald keeps its files: the persistent journal, and the volatile one. */
  val DefaultPaths: Seq[String] =
    Seq("/var/log/journal/*/.*\\.journal~?", "/run/log/journal/*/.*\\.journal~?")

  private val Own = Seq(O.JournalUnits, O.JournalIdentifiers, O.JournalPriority)

  // Each says how a file's bytes are lines, rows or files kept: none has a meaning for entries.
  private val ForFiles = Seq(
    O.Exclude,
    O.IgnoreOlder,
    O.BytesMax,
    O.BatchBytesMax,
    O.BatchBytesMin,
    O.BatchWaitMax,
    O.Md5CheckEnabled,
    O.Md5SampleLength,
    O.PathColumns,
    O.Encoding,
    O.LineSeparator,
    O.HeaderLines,
    O.LineLengthMax,
    O.MultilineStart,
    O.MultilineContinuation,
    O.MultilineBytesMax,
    O.MultilineFlushTimeout,
    O.Cleanup,
    O.CleanupArchiveDir,
    O.CleanupAfter
  )

  /** Whether the query reads journals. */
  def reads(reader: OptionReader): Boolean = reader.value(O.Format) == Journald

  /**
   * The journal's read settings when `format` is `journald`, else none; `messages` is what
   * `include.lines` and `exclude.lines` keep, judged on `MESSAGE`.
   *
   * @throws IllegalArgumentException naming the option set for the other kind of source
   */
  def read(reader: OptionReader, messages: Option[LineFilter]): Option[JournalRead] =
    if (!reads(reader)) {
      Own.find(reader.get(_).nonEmpty).foreach { spec =>
        throw new IllegalArgumentException(
          s"Option '${spec.key}' applies to the systemd journal: set '${O.Format.key}' to " +
            s"'$Journald' too, or remove it.")
      }
      None
    } else {
      ForFiles.find(reader.get(_).nonEmpty).foreach { spec =>
        throw new IllegalArgumentException(
          s"Option '${spec.key}' says how files are read, and '${O.Format.key}' '$Journald' " +
            "reads the journal's entries, not lines: remove it (docs/journal.md lists the " +
            "options that apply).")
      }
      Some(
        JournalRead(
          units = reader.many(O.JournalUnits).toSet,
          identifiers = reader.many(O.JournalIdentifiers).toSet,
          priority = reader.optional(O.JournalPriority).map(JournalRead.priority),
          messages = messages
        ))
    }
}
