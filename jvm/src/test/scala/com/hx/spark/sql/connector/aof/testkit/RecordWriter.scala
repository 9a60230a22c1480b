package com.hx.spark.sql.connector.aof.testkit

import java.io.FileOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Path
import java.util.concurrent.locks.ReentrantLock

import scala.util.Random

/**
 * Writes multi-line records as a Java application logs them: single lines and stack traces
 * (`r<n> ...` first lines), each record in pieces cut at any byte, flushed one by one with
 * pauses between. Writes happen under `lock`, so a rotation can wait for a whole record.
 */
final class RecordWriter(path: Path, seed: Long, val lock: ReentrantLock = new ReentrantLock()) {
  private val random = new Random(seed)
  private val out = new FileOutputStream(path.toFile, true)

  /** The record whose id is `n`: a stack trace every third, else one line. */
  def record(n: Int): String =
    if (n % 3 != 0) s"r$n INFO request served in ${n % 97} ms"
    else
      Seq(
        s"r$n ERROR request failed",
        s"java.lang.IllegalStateException: state $n",
        s"\tat com.example.Service.handle(Service.java:${n % 200})",
        "\tat com.example.Server.run(Server.java:42)",
        s"Caused by: java.io.IOException: disk $n",
        "\tat com.example.Disk.write(Disk.java:7)",
        "\t... 2 more"
      ).mkString("\n")

  /**
   * Appends the records `ids` in pieces, pausing up to `pauseMs` after a piece; returns each
   * record's text by id and the offset its first byte got (the file's size before it).
   */
  def write(ids: Range, pauseMs: Int): Map[String, (String, Long)] =
    ids.map { n =>
      val text = record(n)
      val bytes = (text + "\n").getBytes(UTF_8)
      lock.lock()
      val at =
        try {
          // O_APPEND: after a `copytruncate` the next byte goes to the truncated file's end.
          val at = out.getChannel.size()
          val cuts = Seq.fill(random.nextInt(3))(random.nextInt(bytes.length)).sorted
          (0 +: cuts).zip(cuts :+ bytes.length).foreach { case (from, until) =>
            out.write(bytes, from, until - from)
            out.flush()
            if (pauseMs > 0) Thread.sleep(random.nextInt(pauseMs)) // pacing the writer
          }
          at
        } finally lock.unlock()
      s"r$n" -> (text -> at)
    }.toMap

  /** Appends `text` as it is, under the lock: part of a record, say. */
  def append(text: String): Unit = {
    lock.lock()
    try {
      out.write(text.getBytes(UTF_8))
      out.flush()
    } finally lock.unlock()
  }

  def close(): Unit = out.close()
}
