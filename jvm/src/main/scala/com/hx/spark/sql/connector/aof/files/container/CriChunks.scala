package com.hx.spark.sql.connector.aof.files.container

import com.hx.spark.sql.connector.aof.files.lines.ByteSearch

/**
 * Lines as containerd and CRI-O write them: `<time> <stream> <tags> <message>`, where the tags
 * are `F` (the message's last chunk) or `P` (more follows), separated by `:` should more be
 * defined. The message is the rest of the line, in place: nothing is copied.
 */
final class CriChunks extends LineChunks {
  private val time = new RuntimeTime

  override def parse(line: Array[Byte], from: Int, count: Int): Boolean = {
    val end = from + count
    val micros = time.prefix(line, from, end)
    val timeEnd = time.end
    // The stream is `stdout` or `stderr` between two spaces: one word.
    val streamEnd = timeEnd + 7
    val parsed = micros != RuntimeTime.Invalid && streamEnd < end && {
      val w = ByteSearch.word(line, timeEnd)
      val s =
        if (w == CriChunks.Stdout) LineChunks.Stdout
        else if (w == CriChunks.Stderr) LineChunks.Stderr
        else LineChunks.NoStream
      s != LineChunks.NoStream && {
        // One tag, as runtimes write today, or several, as CRI allows.
        val oneTag = streamEnd + 2 == end || streamEnd + 2 < end && line(streamEnd + 2) == ' '
        val tagsEnd =
          if (oneTag) streamEnd + 2
          else {
            indexOf(line, streamEnd + 1, end, ' ') match {
              case -1 => end
              case i => i
            }
          }
        val partialTag = tagged(line, streamEnd + 1, tagsEnd)
        partialTag >= 0 && {
          bytes = line
          start = math.min(tagsEnd + 1, end)
          length = end - start
          stream = s
          timeMicros = micros
          partial = partialTag == 1
          true
        }
      }
    }
    if (!parsed) whole(line, from, count)
    parsed
  }

  /** 1 when the tags hold `P`, 0 when they hold `F`, -1 when they are not tags. */
  private def tagged(line: Array[Byte], from: Int, until: Int): Int = {
    if (until - from == 1) return if (line(from) == 'P') 1 else if (line(from) == 'F') 0 else -1
    var kind = -1
    var i = from
    while (i < until) {
      val tagEnd = indexOf(line, i, until, ':') match {
        case -1 => until
        case j => j
      }
      if (tagEnd == i) return -1
      if (tagEnd - i == 1 && line(i) == 'P') kind = 1
      else if (tagEnd - i == 1 && line(i) == 'F' && kind < 0) kind = 0
      i = tagEnd + 1
    }
    kind
  }

  /** Index of the first `b` in `line[from, until)`, or -1: the fields searched are short. */
  private def indexOf(line: Array[Byte], from: Int, until: Int, b: Char): Int = {
    var i = from
    while (i < until && line(i) != b) i += 1
    if (i < until) i else -1
  }
}

private object CriChunks {
  private val Stdout = ByteSearch.word(" stdout ")
  private val Stderr = ByteSearch.word(" stderr ")
}
