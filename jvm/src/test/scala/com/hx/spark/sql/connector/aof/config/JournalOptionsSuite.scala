package com.hx.spark.sql.connector.aof.config

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.AofSchema
import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.files.listing.{PathPattern, SourceFiles}
import com.hx.spark.sql.connector.aof.journal.JournalRead

/** `format` `journald`: its paths, its own options, and those of files refused by name. */
class JournalOptionsSuite extends AnyFunSuite {
  private def parse(options: (String, String)*): AofOptions =
    AofOptions.parse(options.toMap, Map.empty)

  private val journald = "format" -> "journald"

  private def refused(options: (String, String)*): String =
    intercept[IllegalArgumentException](parse(options: _*)).getMessage

  test("the journal's directories unless a path is given; entries' rows, not lines") {
    val o = parse(journald)
    assert(
      o.files === SourceFiles(
        Seq(
          PathPattern("/var/log/journal/*", ".*\\.journal~?"),
          PathPattern("/run/log/journal/*", ".*\\.journal~?"))))
    assert(o.read.journal === Some(JournalRead()))
    assert(o.read.grouping.isEmpty && o.read.lineFilter.isEmpty)
    assert(o.metaStore === "/aof/var/log/journal/*")
    val names = AofSchema.of(o).fieldNames.toSeq
    assert(
      names === Seq(
        "value",
        "host",
        "path",
        "offset",
        "file_id",
        "timestamp",
        "time",
        "unit",
        "identifier",
        "priority",
        "pid",
        "boot_id",
        "cursor",
        "fields"))
    val given = parse(journald, "path" -> "/srv/journal/remote/.*\\.journal")
    assert(given.files === SourceFiles(Seq(PathPattern("/srv/journal/remote", ".*\\.journal"))))
  }

  test("units, identifiers and priority, as journalctl takes them; lines filters the message") {
    val o = parse(
      journald,
      "journal.units" -> """["ssh.service", "kubelet.service"]""",
      "journal.identifiers" -> "sshd",
      "journal.priority" -> "warning",
      "exclude.lines" -> "Accepted"
    )
    assert(
      o.read.journal === Some(
        JournalRead(
          Set("ssh.service", "kubelet.service"),
          Set("sshd"),
          Some(4),
          LineFilter.of(Nil, Seq("Accepted")))))
    assert(parse(journald, "journal.priority" -> "3").read.journal.get.priority === Some(3))
    assert(refused(journald, "journal.priority" -> "loud").contains("'journal.priority'"))
  }

  test("an option of files' lines is refused with journald, a journal's option without it") {
    val ofFiles = Seq(
      "multiline.start" -> "^\\d",
      "header.lines" -> "^#",
      "encoding" -> "UTF-16",
      "bytes.max" -> "100",
      "cleanup" -> "delete",
      "path.columns" -> "/(?<app>\\w+)/",
      "md5.check.enabled" -> "false"
    )
    for ((key, value) <- ofFiles) {
      val message = refused(journald, key -> value)
      assert(message.contains(s"'$key'") && message.contains("journald"), message)
    }
    for (key <- Seq("journal.units", "journal.identifiers", "journal.priority")) {
      val message = refused("path" -> "/var/log/app.log", key -> "7")
      assert(message.contains(s"'$key'") && message.contains("'format' to 'journald'"), message)
    }
  }
}
