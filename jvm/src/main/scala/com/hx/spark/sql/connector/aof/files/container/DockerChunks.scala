package com.hx.spark.sql.connector.aof.files.container

import java.nio.charset.StandardCharsets.UTF_8

import com.fasterxml.jackson.core.{JsonFactory, JsonParser, JsonProcessingException, JsonToken}

/**
 * Lines as Docker's json-file driver writes them: `{"log":"...\n","stream":"stdout",
 * "time":"..."}`. A `log` without its `\n` is a partial chunk (Docker splits lines at 16 KiB);
 * the `\n`, and a `\r` before it, are not part of the message. The message is decoded into an
 * array of its own.
 */
final class DockerChunks extends LineChunks {
  private val json = new JsonFactory()
  private val time = new RuntimeTime

  override def parse(line: Array[Byte], from: Int, count: Int): Boolean = {
    val parsed =
      try fields(json.createParser(line, from, count))
      catch { case _: JsonProcessingException => false }
    if (!parsed) whole(line, from, count)
    parsed
  }

  private def fields(p: JsonParser): Boolean =
    try {
      if (p.nextToken() != JsonToken.START_OBJECT) return false
      var log: String = null
      var s = LineChunks.NoStream
      var micros = RuntimeTime.Invalid
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        val name = p.currentName()
        val value = p.nextToken()
        name match {
          case "log" if value == JsonToken.VALUE_STRING => log = p.getText
          case "stream" if value == JsonToken.VALUE_STRING =>
            val b = p.getText.getBytes(UTF_8)
            s = LineChunks.streamOf(b, 0, b.length)
          case "time" if value == JsonToken.VALUE_STRING =>
            val b = p.getText.getBytes(UTF_8)
            micros = time.micros(b, 0, b.length)
          case _ => p.skipChildren()
        }
      }
      (log != null && s != LineChunks.NoStream && micros != RuntimeTime.Invalid) && {
        val message = log.getBytes(UTF_8)
        val full = message.nonEmpty && message.last == '\n'
        val crlf = full && message.length > 1 && message(message.length - 2) == '\r'
        bytes = message
        start = 0
        length = message.length - (if (crlf) 2 else if (full) 1 else 0)
        stream = s
        timeMicros = micros
        partial = !full
        true
      }
    } finally p.close()
}
