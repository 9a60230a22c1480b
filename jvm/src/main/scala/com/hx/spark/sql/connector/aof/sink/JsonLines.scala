package com.hx.spark.sql.connector.aof.sink

import java.io.{BufferedOutputStream, FileOutputStream, OutputStream}
import java.net.{InetSocketAddress, Socket, URI}
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Try

import org.apache.spark.sql.{ForeachWriter, Row}

/**
 * A sink for the milliseconds of real-time mode, usable without writing Scala: each row as one
 * JSON line (the query's columns by name, as `to_json` writes them: [[RowJson]]), written as it
 * comes to a TCP socket (`tcp://host:port`, one connection per task) or appended to a file on the
 * task's host. Flushed once the task's reader has no more rows at hand, where it tells
 * ([[RowBursts]]: this source in real-time mode), else row by row.
 *
 * Real-time mode hands rows only to the sinks Spark allows (`foreach`, Kafka, the console), and
 * a Python `foreach` gets them through a pipe Spark buffers up to a megabyte: this writer is a
 * `foreach` of the JVM's, which Python attaches with `pyspark_aof.foreach_json_lines`.
 */
final class JsonLines(target: String) extends ForeachWriter[Row] {
  JsonLines.check(target)
  @transient private var out: OutputStream = _
  // Whether the task's reader has the rows flushed at the end of each burst ([[RowBursts]]).
  @transient private var atBurstEnd = false

  override def open(partitionId: Long, epochId: Long): Boolean = {
    out = JsonLines.socketAddress(target) match {
      case Some(address) =>
        val socket = new Socket()
        socket.setTcpNoDelay(true)
        socket.connect(address, 10000)
        new BufferedOutputStream(socket.getOutputStream)
      case None => new BufferedOutputStream(new FileOutputStream(target, true), 1 << 16)
    }
    true
  }

  override def process(row: Row): Unit = {
    // One write per line: lines of tasks appending to one file do not interleave.
    out.write((RowJson.of(row) + "\n").getBytes(UTF_8))
    if (!atBurstEnd) atBurstEnd = RowBursts.flushAtEnd(() => if (out != null) out.flush())
    if (!atBurstEnd) out.flush()
  }

  override def close(error: Throwable): Unit = if (out != null) {
    Try(out.close())
    out = null
  }
}

object JsonLines {
  private val Tcp = "tcp://"

  /** The writer for `target`; Python calls this one. */
  def to(target: String): JsonLines = new JsonLines(target)

  private def socketAddress(target: String): Option[InetSocketAddress] =
    if (!target.startsWith(Tcp)) None
    else {
      val uri = new URI(target)
      Some(new InetSocketAddress(uri.getHost, uri.getPort))
    }

  private def check(target: String): Unit = {
    val fix = "give tcp://host:port or an absolute file path"
    if (target.startsWith(Tcp)) {
      val uri = Try(new URI(target)).toOption
      if (!uri.exists(u => u.getHost != null && u.getPort > 0)) {
        throw new IllegalArgumentException(s"json lines target '$target' is not host:port: $fix")
      }
    } else if (!target.startsWith("/")) {
      throw new IllegalArgumentException(s"json lines target '$target' is not absolute: $fix")
    }
  }
}
