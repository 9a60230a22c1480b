package com.hx.spark.sql.connector.aof.journal

import java.nio.charset.StandardCharsets.UTF_8

import com.hx.spark.sql.connector.aof.files.filter.LineFilter

/**
 * Which of a journal's entries become rows (`format` `journald`), judged on the node before a
 * row is made, as a shipper's journal input judges them: by unit, by syslog identifier, by
 * priority, and with `include.lines` and `exclude.lines` on the message.
 *
 * @param units       `journal.units`: an entry's `_SYSTEMD_UNIT`, or the `UNIT` systemd writes of
 *                    a unit it starts or stops, must be one; none: every entry
 * @param identifiers `journal.identifiers`: its `SYSLOG_IDENTIFIER` must be one
 * @param priority    `journal.priority`: its `PRIORITY` must be at most this; an entry without
 *                    one is not read, as `journalctl -p` reads none
 * @param messages    `include.lines` and `exclude.lines`, on `MESSAGE`
 */
final case class JournalRead(
    units: Set[String] = Set.empty,
    identifiers: Set[String] = Set.empty,
    priority: Option[Int] = None,
    messages: Option[LineFilter] = None) {

  /** Whether `entry` becomes a row. */
  def keeps(entry: JournalEntry): Boolean = {
    def one(of: Set[String], names: String*) =
      of.isEmpty || entry.fields.exists { case (n, v) => names.contains(n) && of(text(v)) }
    one(units, "_SYSTEMD_UNIT", "UNIT") && one(identifiers, "SYSLOG_IDENTIFIER") &&
    priority.forall(p => entry.text("PRIORITY").exists(urgent(_, p))) &&
    messages.forall { f =>
      val message = entry.fields.collectFirst { case ("MESSAGE", v) => v }
      message.fold(f.keeps(Array.emptyByteArray, 0, 0))(m => f.keeps(m, 0, m.length))
    }
  }

  private def urgent(value: String, least: Int): Boolean =
    value.length == 1 && value(0).isDigit && value(0) - '0' <= least

  private def text(value: Array[Byte]): String = new String(value, UTF_8)
}

object JournalRead {

  /** `journalctl -p`'s names of the priorities, 0 to 7. */
  val Priorities: Seq[String] =
    Seq("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")

  /** A priority by its name or its digit. */
  def priority(value: String): Int = {
    val byName = Priorities.indexOf(value)
    if (byName >= 0) byName else value.toInt
  }
}
