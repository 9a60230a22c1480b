package com.hx.spark.sql.connector.aof.read

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.mutable

import org.apache.spark.sql.types.{IntegerType, LongType, MapType, StringType, TimestampType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

import com.hx.spark.sql.connector.aof.files.lines.LineDecoder
import com.hx.spark.sql.connector.aof.journal.JournalEntry

/**
 * Entries of a journal, handed to Spark as a columnar batch of the journal's rows
 * ([[JournalBatch.Columns]]): `value` is the entry's `MESSAGE`, the fields users filter on have
 * columns of their own, and every other field is in `fields`. A field's bytes that are not UTF-8
 * (journald stores any bytes) are read with each bad sequence replaced by U+FFFD and counted; a
 * field given more than once has its values joined by `\n`, as a map holds a key once.
 */
final class JournalBatch(val capacity: Int = LineBatch.Capacity) {
  import JournalBatch._
  private val values = new Array[UTF8String](capacity)
  private val paths = new Array[UTF8String](capacity)
  private val offsets = new Array[Long](capacity)
  private val times = new Array[Long](capacity)
  private val units = new Array[UTF8String](capacity)
  private val identifiers = new Array[UTF8String](capacity)
  private val priorities = new Array[Int](capacity)
  private val pids = new Array[Int](capacity)
  private val boots = new Array[UTF8String](capacity)
  // Kept for the cursor, made only when a query reads it.
  private val entries = new Array[JournalEntry](capacity)
  private val fieldsFrom = new Array[Int](capacity + 1)
  private val keys = mutable.ArrayBuffer.empty[UTF8String]
  private val fieldValues = mutable.ArrayBuffer.empty[UTF8String]
  private var host = UTF8String.EMPTY_UTF8
  private var fileId = UTF8String.EMPTY_UTF8
  private var plannedMicros = 0L
  private var invalid = 0L
  // A node's entries repeat a few dozen field names and one boot: each made a UTF8String once.
  private val names = mutable.HashMap.empty[String, UTF8String]
  private var lastBootId = ""
  private var lastBoot = UTF8String.EMPTY_UTF8

  private def rows = columns.numRows
  private def strings(of: Array[UTF8String]) = new Column.Nullable(StringType, () => rows) {
    override def isNullAt(i: Int): Boolean = of(i) == null
    override def getUTF8String(i: Int): UTF8String = of(i)
  }
  private def ints(of: Array[Int]) = new Column.Nullable(IntegerType, () => rows) {
    override def isNullAt(i: Int): Boolean = of(i) < 0
    override def getInt(i: Int): Int = of(i)
  }
  private def flat(of: mutable.ArrayBuffer[UTF8String]) = new Column.Of(StringType) {
    override def getUTF8String(i: Int): UTF8String = of(i)
  }
  private val keyColumn = flat(keys)
  private val valueColumn = flat(fieldValues)

  val columns: ColumnarBatch = new ColumnarBatch(
    Array[ColumnVector](
      new Column.Of(StringType) { override def getUTF8String(i: Int): UTF8String = values(i) },
      new Column.Of(StringType) { override def getUTF8String(i: Int): UTF8String = host },
      new Column.Of(StringType) { override def getUTF8String(i: Int): UTF8String = paths(i) },
      new Column.Of(LongType) { override def getLong(i: Int): Long = offsets(i) },
      new Column.Of(StringType) { override def getUTF8String(i: Int): UTF8String = fileId },
      new Column.Of(TimestampType) { override def getLong(i: Int): Long = plannedMicros },
      new Column.Of(TimestampType) { override def getLong(i: Int): Long = times(i) },
      strings(units),
      strings(identifiers),
      ints(priorities),
      ints(pids),
      new Column.Of(StringType) { override def getUTF8String(i: Int): UTF8String = boots(i) },
      new Column.Of(StringType) {
        override def getUTF8String(i: Int): UTF8String = UTF8String.fromString(entries(i).cursor)
      },
      new Column.Of(MapType(StringType, StringType)) {
        override def getMap(i: Int): ColumnarMap =
          new ColumnarMap(keyColumn, valueColumn, fieldsFrom(i), fieldsFrom(i + 1) - fieldsFrom(i))
      }
    ))

  def isFull: Boolean = rows == capacity

  /** Fields read so far whose bytes were not UTF-8. */
  def invalidFields: Long = invalid

  /** Empties the batch for entries of `host`'s sequence `fileId`, planned at `plannedAtMs`. */
  def reset(entryHost: UTF8String, entryFileId: UTF8String, plannedAtMs: Long): Unit = {
    host = entryHost
    fileId = entryFileId
    plannedMicros = plannedAtMs * 1000L
    keys.clear()
    fieldValues.clear()
    columns.setNumRows(0)
  }

  /** Adds `entry`, read from the file at `path`. */
  def add(entry: JournalEntry, path: UTF8String): Unit = {
    val i = rows
    values(i) = UTF8String.EMPTY_UTF8
    units(i) = null
    identifiers(i) = null
    priorities(i) = -1
    pids(i) = -1
    val first = keys.size
    fieldsFrom(i) = first
    entry.fields.foreach { case (name, bytes) =>
      name match {
        case "MESSAGE" => values(i) = text(bytes)
        case "_SYSTEMD_UNIT" if units(i) == null => units(i) = text(bytes)
        case "SYSLOG_IDENTIFIER" if identifiers(i) == null => identifiers(i) = text(bytes)
        case "PRIORITY" if priorities(i) < 0 => priorities(i) = number(bytes)
        case "_PID" if pids(i) < 0 => pids(i) = number(bytes)
        case "_BOOT_ID" =>
        case _ =>
          val key = names.getOrElseUpdate(name, UTF8String.fromString(name))
          // An entry holds a few dozen fields at most: a repeated one is found by a scan.
          var k = first
          while (k < keys.size && (keys(k) ne key)) k += 1
          if (k == keys.size) {
            keys += key
            fieldValues += text(bytes)
          } else fieldValues(k) = UTF8String.concatWs(NewLine, fieldValues(k), text(bytes))
      }
    }
    fieldsFrom(i + 1) = keys.size
    paths(i) = path
    offsets(i) = entry.seqnum
    times(i) = entry.realtime
    if (entry.bootId != lastBootId) {
      lastBootId = entry.bootId
      lastBoot = UTF8String.fromString(lastBootId)
    }
    boots(i) = lastBoot
    entries(i) = entry
    columns.setNumRows(i + 1)
  }

  private def text(bytes: Array[Byte]): UTF8String =
    if (LineDecoder.validUtf8(bytes, 0, bytes.length)) UTF8String.fromBytes(bytes)
    else {
      invalid += 1
      UTF8String.fromString(new String(bytes, UTF_8))
    }
}

object JournalBatch {
  private val NewLine = UTF8String.fromString("\n")

  /** The columns after `value`, `host`, `path`, `offset`, `file_id` and `timestamp`. */
  val Columns: Seq[(String, org.apache.spark.sql.types.DataType)] = Seq(
    "time" -> TimestampType,
    "unit" -> StringType,
    "identifier" -> StringType,
    "priority" -> IntegerType,
    "pid" -> IntegerType,
    "boot_id" -> StringType,
    "cursor" -> StringType,
    "fields" -> MapType(StringType, StringType)
  )

  /** A field's number (`PRIORITY`, `_PID`), or -1 (null) when it holds none. */
  private def number(bytes: Array[Byte]): Int =
    if (bytes.isEmpty || bytes.length > 9 || !bytes.forall(b => b >= '0' && b <= '9')) -1
    else new String(bytes, UTF_8).toInt
}
