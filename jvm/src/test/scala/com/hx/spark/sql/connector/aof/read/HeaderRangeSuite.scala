package com.hx.spark.sql.connector.aof.read

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.collection.mutable.ArrayBuffer

import org.apache.commons.codec.digest.DigestUtils.md5Hex
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.files.lines.LineEnding
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.rows.FileHeader
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/**
 * `header.lines`: the lines at a file's head that are its header, found alike from any start, and
 * a range read with them: no row for a header line, every row with the header, wherever the range
 * starts.
 */
class HeaderRangeSuite extends AnyFunSuite with SparkTestKit {
  private val w3c = FileHeader("^#")
  private val directives =
    "#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n" +
      "#Date: 2026-11-28 10:00:00\n#Fields: date time cs-method cs-uri-stem sc-status\n"
  private val entries =
    (0 until 500).map(n => f"2026-11-28 10:00:$n%02d GET /page/$n 200\n").mkString

  private def logFile(text: String): Path =
    Files.write(newDir("logs").resolve("u_ex261128.log"), text.getBytes(UTF_8))

  private def found(header: FileHeader, text: String): FileHeader.Found = {
    val channel = FileChannel.open(logFile(text))
    try header.of(channel, 1 << 20, LineEnding.Default)
    finally channel.close()
  }

  // format: off
  private val table = Seq(
    ("W3C directives", w3c, directives + entries, directives.length.toLong, Some(directives.stripSuffix("\n"))),
    ("a CSV's column names", FileHeader("^time,"), "time,level,message\n1,INFO,up\n", 19L, Some("time,level,message")),
    ("no header: the first line is a row", w3c, entries, 0L, None),
    ("a header line after a row is a row", w3c, entries.linesWithSeparators.next() + "#Fields: x\n", 0L, None),
    ("only the header so far: all of it", w3c, directives, directives.length.toLong, Some(directives.stripSuffix("\n"))),
    ("a header line still being written is not one yet", w3c, "#Version: 1.0\n#Fie", 14L, Some("#Version: 1.0")),
    ("at most 100 lines", w3c, "#\n" * 150, 200L, Some(Seq.fill(100)("#").mkString("\n")))
  )
  // format: on

  table.foreach { case (what, header, text, end, lines) =>
    test(s"header: $what") {
      assert(found(header, text) === FileHeader.Found(end, lines))
    }
  }

  /** The rows (value, offset, header) of `[from, size)` of `file`, read with `header`. */
  private def read(file: Path, from: Long, header: FileHeader): Seq[(String, Long, String)] = {
    val bytes = Files.readAllBytes(file)
    val head = Fingerprint(1024, md5Hex(bytes.take(1024)))
    val range = FileRange("h", file.toString, FileKey.of(file), "1:1:0", from, bytes.length, head)
    val reader = new FileRangeReader(
      range,
      SourceFiles(file.getParent, ".*"),
      ReadSettings(header = Some(header)),
      false,
      ReadCounters.register(spark.sparkContext))
    val rows = ArrayBuffer.empty[(String, Long, String)]
    val batch = new LineBatch(capacity = 7, header = true)
    val headerColumn = 6
    try {
      while (reader.nextBatch(batch)) {
        (0 until batch.columns.numRows).foreach { i =>
          val row = batch.columns.getRow(i)
          val h = if (row.isNullAt(headerColumn)) null else row.getUTF8String(headerColumn).toString
          rows += ((row.getUTF8String(0).toString, row.getLong(3), h))
        }
      }
    } finally reader.close()
    rows.toList
  }

  test("no row for a header line; every row carries the header, from any start") {
    val file = logFile(directives + entries)
    val header = directives.stripSuffix("\n")
    val lines = entries.split("\n").toSeq
    val offsets = lines.scanLeft(directives.length.toLong)(_ + _.length + 1)
    val all = lines.zip(offsets).map { case (l, o) => (l, o, header) }
    assert(read(file, 0L, w3c) === all)
    assert(read(file, 30L, w3c) === all) // from inside the header
    assert(read(file, 5000L, w3c) === all.filter(_._2 >= 5000L)) // mid-file: the header still
    val plain = logFile(entries)
    assert(read(plain, 0L, w3c).map(_._3).distinct === Seq(null))
  }
}
