package com.hx.spark.sql.connector.aof.read

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.collection.mutable.ArrayBuffer

import org.apache.commons.codec.digest.DigestUtils.md5Hex
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.records.RecordRule
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/** A planned range read through `include.lines` and `exclude.lines`: rows only for lines kept. */
class FilteredRangeSuite extends AnyFunSuite with SparkTestKit {

  /** The rows (value, offset) of `[from, size)` and the lines filtered. */
  private def read(
      file: Path,
      from: Long,
      filter: LineFilter,
      records: Option[RecordRule] = None): (Seq[(String, Long)], Long) = {
    val bytes = Files.readAllBytes(file)
    val head = Fingerprint(1024, md5Hex(bytes.take(1024)))
    val range = FileRange("h", file.toString, FileKey.of(file), "1:1:0", from, bytes.length, head)
    val counters = ReadCounters.register(spark.sparkContext)
    val files = SourceFiles(file.getParent, ".*")
    val reader = new FileRangeReader(
      range,
      files,
      ReadSettings(grouping = records, lineFilter = Some(filter)),
      false,
      counters)
    val rows = ArrayBuffer.empty[(String, Long)]
    val batch = new LineBatch(capacity = 7) // batches end between kept lines and filtered ones
    try {
      while (reader.nextBatch(batch)) {
        assert(batch.columns.numRows > 0)
        (0 until batch.columns.numRows).foreach { i =>
          val row = batch.columns.getRow(i)
          rows += row.getUTF8String(0).toString -> row.getLong(3)
        }
      }
    } finally reader.close()
    (rows.toList, counters.linesFiltered.value)
  }

  private val lines = (0 until 1000).map { n =>
    if (n % 100 == 42) s"$n ERROR disk full" else if (n % 10 == 3) s"$n WARN retrying" else s"$n ok"
  }
  private val offsets = lines.scanLeft(0L)(_ + _.length + 1)

  private def logFile(text: String): Path =
    Files.write(newDir("logs").resolve("app.log"), text.getBytes(UTF_8))

  test("only the lines kept become rows, at their offsets; the others are counted") {
    val file = logFile(lines.map(_ + "\n").mkString)
    val errors = lines.zip(offsets).filter(_._1.contains("ERROR"))
    assert(read(file, 0L, LineFilter(Seq("ERROR"), Nil)) === ((errors, 990L)))
    // From inside a line, as a batch of another range may end.
    val later = errors.filter(_._2 > 3000L)
    assert(read(file, 3000L, LineFilter(Seq("ERROR"), Nil))._1 === later)
    val quiet = lines.zip(offsets).filterNot(l => l._1.contains("WARN") || l._1.contains("ERROR"))
    assert(read(file, 0L, LineFilter(Nil, Seq("WARN", "ERR.R"))) === ((quiet, 110L)))
    assert(read(file, 0L, LineFilter(Seq("retry"), Seq("WARN"))) === ((Nil, 1000L)))
  }

  test("a multi-line record is kept or dropped whole, by any of its lines") {
    val records = (0 until 30).map { n =>
      val cause = if (n % 3 == 0) "Caused by: java.io.IOException" else "at Main.run"
      Seq(s"$n Exception in thread main", "  at Worker.call", s"  $cause").mkString("\n") + "\n"
    }
    val file = logFile(records.mkString)
    val rule = RecordRule(Some("^\\d"), patternStarts = true, 1 << 20, 2000L, 1 << 20, None)
    val starts = records.scanLeft(0L)(_ + _.length)
    val kept = records.zip(starts).filter(_._1.contains("Caused by")).map { case (r, at) =>
      r.stripSuffix("\n") -> at
    }
    assert(read(file, 0L, LineFilter(Seq("Caused by"), Nil), Some(rule)) === ((kept, 20L)))
  }
}
