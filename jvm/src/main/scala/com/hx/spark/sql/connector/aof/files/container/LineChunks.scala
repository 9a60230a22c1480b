package com.hx.spark.sql.connector.aof.files.container

/**
 * What one line of a [[LineFormat]] holds, parsed in place: the chunk of message it carries
 * (`bytes[start, start + length)`), its stream, the runtime's time, and whether more of the
 * message follows. A line that is not of the format is passed on whole, as text.
 */
abstract class LineChunks {
  var bytes: Array[Byte] = Array.emptyByteArray
  var start: Int = 0
  var length: Int = 0

  /** One of its format's [[LineFormat.streamIds]]: [[LineChunks.NoStream]] for text. */
  var stream: Int = LineChunks.NoStream

  /** The runtime's time of the line, in microseconds since the epoch; with a stream only. */
  var timeMicros: Long = 0L

  /** Whether the message goes on in the stream's next line. */
  var partial: Boolean = false

  /** Parses the line `line[start, start + length)`; false when it is not of the format. */
  def parse(line: Array[Byte], start: Int, length: Int): Boolean

  /** The whole line as a complete message of no stream: text, or a line not of the format. */
  protected def whole(line: Array[Byte], from: Int, count: Int): Unit = {
    bytes = line
    start = from
    length = count
    stream = LineChunks.NoStream
    partial = false
  }
}

object LineChunks {
  val NoStream = 0

  /** The streams a container runtime names: stream 1 and 2 of its lines. */
  val RuntimeStreams: Seq[String] = Seq("stdout", "stderr")
  val Stdout = 1
  val Stderr = 2

  /** The stream a runtime names, or NoStream. */
  def streamOf(bytes: Array[Byte], from: Int, until: Int): Int = {
    val n = until - from
    if (n != 6 || bytes(from) != 's' || bytes(from + 1) != 't' || bytes(from + 2) != 'd') NoStream
    else if (bytes(from + 3) == 'o' && bytes(from + 4) == 'u' && bytes(from + 5) == 't') Stdout
    else if (bytes(from + 3) == 'e' && bytes(from + 4) == 'r' && bytes(from + 5) == 'r') Stderr
    else NoStream
  }
}
