package com.hx.spark.sql.connector.aof.files.container

import java.util.Locale

/**
 * How a file's lines are written: as the application wrote them (`text`), or wrapped by a
 * container runtime (`cri`: containerd's and CRI-O's `<time> <stream> <P|F> <message>`;
 * `docker`: Docker's json-file driver, `{"log": ..., "stream": ..., "time": ...}`). A runtime
 * splits a long line into chunks: all but the last are partial (CRI's `P`, a docker `log`
 * without its `\n`), and [[MessageJoin]] puts them back together.
 */
sealed abstract class LineFormat(val name: String, val streams: Seq[String]) extends Serializable {

  /** Parses this format's lines; one per reader, as it keeps what it parsed last. */
  def parser(): LineChunks

  /**
   * Whether a container runtime writes it: each line carries a stream (one of `streams`) and the
   * runtime's time, and rows have those columns.
   */
  def byRuntime: Boolean = streams.nonEmpty

  /**
   * The streams a line's parse may give (its [[LineChunks.stream]]): [[LineChunks.NoStream]], 0,
   * for a line that has none, and `n` for `streams(n - 1)`.
   */
  def streamIds: Range = 0 to streams.size

  /** The name of stream `id`; null for [[LineChunks.NoStream]]. */
  def streamName(id: Int): String = if (id == LineChunks.NoStream) null else streams(id - 1)

  /**
   * The longest line read whole: the message, not the runtime's line, is cut to
   * `line.length.max`, so the line around it may be longer (a docker line escapes its message).
   */
  def lineLimit(lineLengthMax: Int): Int =
    if (byRuntime) math.max(lineLengthMax, LineFormat.RuntimeLineMin) else lineLengthMax
}

object LineFormat {
  case object Text extends LineFormat("text", Nil) {
    override def parser(): LineChunks = new LineChunks {
      override def parse(line: Array[Byte], start: Int, length: Int): Boolean = {
        whole(line, start, length)
        true
      }
    }
  }

  case object Cri extends LineFormat("cri", LineChunks.RuntimeStreams) {
    override def parser(): LineChunks = new CriChunks
  }

  case object Docker extends LineFormat("docker", LineChunks.RuntimeStreams) {
    override def parser(): LineChunks = new DockerChunks
  }

  val All: Seq[LineFormat] = Seq(Text, Cri, Docker)

  // A runtime's chunk is 16 KiB of message; escaped as JSON, up to six bytes each.
  private val RuntimeLineMin = 128 * 1024

  def named(name: String): Option[LineFormat] =
    All.find(_.name == name.trim.toLowerCase(Locale.ROOT))
}
