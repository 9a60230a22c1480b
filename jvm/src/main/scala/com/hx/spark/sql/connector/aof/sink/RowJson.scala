package com.hx.spark.sql.connector.aof.sink

import java.io.StringWriter
import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}
import java.time.format.DateTimeFormatter
import java.util.Base64

import com.fasterxml.jackson.core.{JsonFactory, JsonGenerator}
import org.apache.spark.sql.Row

/**
 * A row as one JSON object, by column name, as Spark's `to_json` writes it: a time as ISO 8601
 * with milliseconds and its zone (UTC, `2026-12-05T08:35:12.123Z`), a local time without one, a
 * date as `2026-12-05`, binary as base64, arrays, maps and structs nested. `Row.json` writes a
 * time without its fraction or zone, which no reader can place.
 */
private[sink] object RowJson {
  private val factory = new JsonFactory()
  private val Time = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
  private val LocalTime = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS")

  def of(row: Row): String = {
    val text = new StringWriter()
    val json = factory.createGenerator(text)
    try struct(json, row)
    finally json.close()
    text.toString
  }

  private def struct(json: JsonGenerator, row: Row): Unit = {
    json.writeStartObject()
    val names = Option(row.schema).map(_.fieldNames).getOrElse(Array.empty[String])
    (0 until row.length).foreach { i =>
      json.writeFieldName(if (i < names.length) names(i) else s"col${i + 1}")
      value(json, row.get(i))
    }
    json.writeEndObject()
  }

  private def value(json: JsonGenerator, v: Any): Unit = v match {
    case null => json.writeNull()
    case s: String => json.writeString(s)
    case b: Boolean => json.writeBoolean(b)
    case n: Byte => json.writeNumber(n.toInt)
    case n: Short => json.writeNumber(n)
    case n: Int => json.writeNumber(n)
    case n: Long => json.writeNumber(n)
    case n: Float => json.writeNumber(n)
    case n: Double => json.writeNumber(n)
    case n: java.math.BigDecimal => json.writeNumber(n)
    case t: java.sql.Timestamp =>
      json.writeString(Time.format(t.toInstant.atOffset(ZoneOffset.UTC)))
    case t: Instant => json.writeString(Time.format(t.atOffset(ZoneOffset.UTC)))
    case t: LocalDateTime => json.writeString(LocalTime.format(t))
    case d: java.sql.Date => json.writeString(d.toLocalDate.toString)
    case d: LocalDate => json.writeString(d.toString)
    case b: Array[Byte] => json.writeString(Base64.getEncoder.encodeToString(b))
    case r: Row => struct(json, r)
    case m: scala.collection.Map[_, _] =>
      json.writeStartObject()
      m.foreach { case (k, mv) =>
        json.writeFieldName(String.valueOf(k))
        value(json, mv)
      }
      json.writeEndObject()
    case s: Iterable[_] =>
      json.writeStartArray()
      s.foreach(value(json, _))
      json.writeEndArray()
    case other => json.writeString(other.toString)
  }
}
