package com.hx.spark.sql.connector.aof.files.container

import java.util.Locale

/**
 * How a file's lines are written: as the application wrote them (`text`), or wrapped by a
 * container runtime (`cri`: containerd's and CRI-O's `<time> <stream> <P|F> <message>`;
 * `docker`: Docker's json-file driver, `{"log": ..., "stream": ..., "time": ...}`). A runtime
 * splits a long line into chunks: all but the last are partial (CRI's `P`, a docker `log`
 * without its `\n`), and [[MessageJoin]] puts them back together.
 */
sealed abstract class LineFormat(val name: String) extends Serializable {

  /** Parses this format's lines; one per reader, as it keeps what it parsed last. */
  def parser(): LineChunks

  /** Whether lines carry a stream and a time: then rows have those columns. */
  def wrapped: Boolean = this != LineFormat.Text

  /**
   * The longest line read whole: the message, not the runtime's line, is cut to
   * `line.length.max`, so the line around it may be longer (a docker line escapes its message).
   */
  def lineLimit(lineLengthMax: Int): Int =
    if (wrapped) math.max(lineLengthMax, LineFormat.WrappedLineMin) else lineLengthMax
}

object LineFormat {
  case object Text extends LineFormat("text") {
    override def parser(): LineChunks = new LineChunks {
      override def parse(line: Array[Byte], start: Int, length: Int): Boolean = {
        whole(line, start, length)
        true
      }
    }
  }

  case object Cri extends LineFormat("cri") {
    override def parser(): LineChunks = new CriChunks
  }

  case object Docker extends LineFormat("docker") {
    override def parser(): LineChunks = new DockerChunks
  }

  val All: Seq[LineFormat] = Seq(Text, Cri, Docker)

  // A runtime's chunk is 16 KiB of message; escaped as JSON, up to six bytes each.
  private val WrappedLineMin = 128 * 1024

  def named(name: String): Option[LineFormat] =
    All.find(_.name == name.trim.toLowerCase(Locale.ROOT))
}

/**
 * What one line of a [[LineFormat]] holds, parsed in place: the chunk of message it carries
 * (`bytes[start, start + length)`), its stream, the runtime's time, and whether more of the
 * message follows. A line that is not of the format is passed on whole, as text.
 */
abstract class LineChunks {
  var bytes: Array[Byte] = Array.emptyByteArray
  var start: Int = 0
  var length: Int = 0

  /** [[LineChunks.Stdout]], [[LineChunks.Stderr]], or [[LineChunks.NoStream]] for text. */
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
  val Stdout = 1
  val Stderr = 2
  val Streams = 3
  val All: Seq[Int] = 0 until Streams

  /** The stream a runtime names, or NoStream. */
  def streamOf(bytes: Array[Byte], from: Int, until: Int): Int = {
    val n = until - from
    if (n != 6 || bytes(from) != 's' || bytes(from + 1) != 't' || bytes(from + 2) != 'd') NoStream
    else if (bytes(from + 3) == 'o' && bytes(from + 4) == 'u' && bytes(from + 5) == 't') Stdout
    else if (bytes(from + 3) == 'e' && bytes(from + 4) == 'r' && bytes(from + 5) == 'r') Stderr
    else NoStream
  }

  /** The column value of a stream. */
  def name(stream: Int): String = stream match {
    case Stdout => "stdout"
    case Stderr => "stderr"
    case _ => null
  }
}
