package com.hx.spark.sql.connector.aof.files

/**
 * Lines as containerd and CRI-O write them: `<time> <stream> <tags> <message>`, where the tags
 * are `F` (the message's last chunk) or `P` (more follows), separated by `:` should more be
 * defined. The message is the rest of the line, in place: nothing is copied.
 */
final class CriChunks extends LineChunks {
  private val time = new RuntimeTime

  override def parse(line: Array[Byte], from: Int, count: Int): Boolean = {
    val end = from + count
    val timeEnd = indexOf(line, from, end, ' ')
    val streamEnd = if (timeEnd < 0) -1 else indexOf(line, timeEnd + 1, end, ' ')
    val parsed = streamEnd >= 0 && {
      val tagsEnd = indexOf(line, streamEnd + 1, end, ' ') match {
        case -1 => end
        case i => i
      }
      val s = LineChunks.streamOf(line, timeEnd + 1, streamEnd)
      val partialTag = tagged(line, streamEnd + 1, tagsEnd)
      val micros =
        if (s == LineChunks.NoStream) RuntimeTime.Invalid else time.micros(line, from, timeEnd)
      (micros != RuntimeTime.Invalid && partialTag >= 0) && {
        bytes = line
        start = math.min(tagsEnd + 1, end)
        length = end - start
        stream = s
        timeMicros = micros
        partial = partialTag == 1
        true
      }
    }
    if (!parsed) whole(line, from, count)
    parsed
  }

  /** 1 when the tags hold `P`, 0 when they hold `F`, -1 when they are not tags. */
  private def tagged(line: Array[Byte], from: Int, until: Int): Int = {
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
