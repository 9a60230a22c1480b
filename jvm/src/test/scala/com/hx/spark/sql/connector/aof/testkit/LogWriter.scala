package com.hx.spark.sql.connector.aof.testkit

import java.io.FileOutputStream
import java.nio.charset.StandardCharsets
import java.nio.file.Path
import java.util.concurrent.atomic.AtomicBoolean

import scala.collection.mutable

/**
 * A real writer: appends lines with unique ids to a file through its own file descriptor, the way
 * an application logs. Some lines are written in two halves with a pause in between, so readers
 * see half-written lines.
 *
 * @param prefix unique per writer; ids are `prefix-<n>`
 */
final class LogWriter(file: Path, prefix: String, lines: Int, splitEvery: Int = 7) {
  private val written = mutable.ArrayBuffer.empty[String]
  private val failed = new AtomicBoolean(false)
  private val thread = new Thread(() => run(), s"log-writer-$prefix")

  def start(): LogWriter = {
    thread.setDaemon(true)
    thread.start()
    this
  }

  /** Waits for the writer to finish; returns the ids it wrote. */
  def join(): Seq[String] = {
    thread.join(120000)
    require(!thread.isAlive && !failed.get, s"writer $prefix did not finish cleanly")
    written.synchronized(written.toList)
  }

  private def run(): Unit = {
    val out = new FileOutputStream(file.toFile, true)
    try {
      (1 to lines).foreach { n =>
        val id = s"$prefix-$n"
        val line = s"$id ${"x" * (n % 50)} end\n".getBytes(StandardCharsets.UTF_8)
        if (n % splitEvery == 0) {
          out.write(line, 0, line.length / 2)
          out.flush()
          Thread.sleep(30) // a half-written line that stays visible across triggers
          out.write(line, line.length / 2, line.length - line.length / 2)
        } else {
          out.write(line)
        }
        out.flush()
        written.synchronized(written += id)
        if (n % 100 == 0) Thread.sleep(5)
      }
    } catch {
      case e: Throwable =>
        failed.set(true)
        throw e
    } finally out.close()
  }
}

object LogWriter {

  /** Appends whole lines at once, for tests that need no concurrency. */
  def append(file: Path, ids: Seq[String]): Seq[String] = {
    val out = new FileOutputStream(file.toFile, true)
    try ids.foreach(id => out.write(s"$id line\n".getBytes(StandardCharsets.UTF_8)))
    finally out.close()
    ids
  }
}
