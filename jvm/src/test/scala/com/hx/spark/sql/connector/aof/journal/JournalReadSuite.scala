package com.hx.spark.sql.connector.aof.journal

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.filter.LineFilter

import com.hx.spark.sql.connector.aof.testkit.Spark4Only

/** Which entries a journal's filters keep, case by case. */
@Spark4Only
class JournalReadSuite extends AnyFunSuite {
  private def entry(fields: (String, String)*): JournalEntry =
    JournalEntry(
      "0" * 32,
      1L,
      0L,
      0L,
      "0" * 32,
      0L,
      fields.map { case (k, v) =>
        k -> v.getBytes(UTF_8)
      })

  private val sshd = entry(
    "MESSAGE" -> "Accepted key",
    "_SYSTEMD_UNIT" -> "ssh.service",
    "SYSLOG_IDENTIFIER" -> "sshd",
    "PRIORITY" -> "6")
  private val started = entry("MESSAGE" -> "Started ssh.service", "UNIT" -> "ssh.service")
  private val kernel =
    entry("MESSAGE" -> "oops", "SYSLOG_IDENTIFIER" -> "kernel", "PRIORITY" -> "2")

  private val cases = Seq(
    ("no filter", JournalRead(), Seq(true, true, true)),
    (
      "a unit: its own entries, and systemd's of it",
      JournalRead(units = Set("ssh.service")),
      Seq(true, true, false)),
    ("an identifier", JournalRead(identifiers = Set("kernel")), Seq(false, false, true)),
    (
      "a priority: as urgent or more; none without one",
      JournalRead(priority = Some(3)),
      Seq(false, false, true)),
    (
      "the least urgent priority reads all that have one",
      JournalRead(priority = Some(7)),
      Seq(true, false, true)),
    (
      "exclude.lines on the message",
      JournalRead(messages = LineFilter.of(Nil, Seq("^Acc"))),
      Seq(false, true, true)),
    (
      "include.lines on the message",
      JournalRead(messages = LineFilter.of(Seq("oops"), Nil)),
      Seq(false, false, true)),
    (
      "all at once",
      JournalRead(Set("ssh.service"), Set("sshd"), Some(6), None),
      Seq(true, false, false))
  )

  for ((name, read, kept) <- cases) test(name) {
    assert(Seq(sshd, started, kernel).map(read.keeps) === kept)
  }

  test("priorities by name or digit, as journalctl -p takes them") {
    assert(JournalRead.priority("warning") === 4)
    assert(JournalRead.priority("emerg") === 0)
    assert(JournalRead.priority("7") === 7)
  }
}
