package com.hx.spark.sql.connector.aof.read

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.journal.JournalEntry

/** A journal's entries as rows: the columns, the map of the other fields, bytes not UTF-8. */
class JournalBatchSuite extends AnyFunSuite {
  private def entry(seqnum: Long, fields: (String, Array[Byte])*): JournalEntry =
    JournalEntry("ab" * 16, seqnum, 1700000000000000L, 5L, "cd" * 16, 0x1fL, fields)

  private def text(s: String): Array[Byte] = s.getBytes(UTF_8)

  private def fill(entries: JournalEntry*): JournalBatch = {
    val batch = new JournalBatch(capacity = 4)
    batch.reset(UTF8String.fromString("node-1"), UTF8String.fromString("7:8:0"), 1000L)
    entries.foreach(batch.add(_, UTF8String.fromString("/run/log/journal/m/system.journal")))
    batch
  }

  test("the fields users filter on in columns, every other field in the map, the cursor") {
    val batch = fill(
      entry(
        42L,
        "MESSAGE" -> text("hello"),
        "PRIORITY" -> text("3"),
        "_PID" -> text("1234"),
        "_SYSTEMD_UNIT" -> text("app.service"),
        "SYSLOG_IDENTIFIER" -> text("app"),
        "_BOOT_ID" -> text("cd" * 16),
        "_TRANSPORT" -> text("journal"),
        "CODE_LINE" -> text("1"),
        "CODE_LINE" -> text("2")
      ),
      entry(43L, "_TRANSPORT" -> text("kernel"))
    )
    val row = batch.columns.getRow(0)
    assert(row.getUTF8String(0).toString === "hello")
    assert(row.getUTF8String(1).toString === "node-1")
    assert(row.getUTF8String(2).toString === "/run/log/journal/m/system.journal")
    assert(row.getLong(3) === 42L)
    assert(row.getUTF8String(4).toString === "7:8:0")
    assert(row.getLong(5) === 1000000L)
    assert(row.getLong(6) === 1700000000000000L)
    assert(row.getUTF8String(7).toString === "app.service")
    assert(row.getUTF8String(8).toString === "app")
    assert(row.getInt(9) === 3 && row.getInt(10) === 1234)
    assert(row.getUTF8String(11).toString === "cd" * 16)
    assert(
      row.getUTF8String(12).toString === s"s=${"ab" * 16};i=2a;b=${"cd" * 16};m=5;t=" +
        s"${1700000000000000L.toHexString};x=1f")
    val map = row.getMap(13)
    val fields = (0 until map.numElements()).map { i =>
      map.keyArray().getUTF8String(i).toString -> map.valueArray().getUTF8String(i).toString
    }
    assert(fields === Seq("_TRANSPORT" -> "journal", "CODE_LINE" -> "1\n2"))
    val bare = batch.columns.getRow(1)
    assert(bare.getUTF8String(0).toString === "", "no MESSAGE: an empty value")
    assert((7 to 10).forall(bare.isNullAt), "no unit, identifier, priority or pid: nulls")
    assert(bare.getMap(13).numElements() === 1)
  }

  test("bytes that are not UTF-8 are replaced, each such field counted; UTF-8 kept as it is") {
    val batch = fill(
      entry(1L, "MESSAGE" -> Array[Byte]('a', 0xff.toByte, 'b'), "BLOB" -> Array[Byte](0, 1, 2)),
      entry(2L, "MESSAGE" -> text("grüße")))
    assert(batch.columns.getRow(0).getUTF8String(0).toString === "a\uFFFDb")
    assert(batch.columns.getRow(1).getUTF8String(0).toString === "grüße")
    assert(batch.invalidFields === 1L)
    val blob = batch.columns.getRow(0).getMap(13)
    assert(blob.valueArray().getUTF8String(0).toString === "\u0000\u0001\u0002")
  }
}
