package com.hx.spark.sql.connector.aof.testkit

import java.io.FileOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Path
import java.util.concurrent.locks.ReentrantLock

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.FileKey

/**
 * Writes like an application under logrotate: appends numbered lines at a steady rate through
 * an O_APPEND descriptor, and reopens its path when logrotate has moved the file away (what a
 * `postrotate` reload does). Writes happen under `lock`, so a rotation can pause the writer.
 *
 * @param openEachWrite open the file for each write and close it after, as `echo >> log` does:
 *   no descriptor then keeps a rotated file's inode from being freed, and given to the next file
 */
final class AppLogWriter(
    path: Path,
    prefix: String,
    linesPerSecond: Int,
    val lock: ReentrantLock,
    openEachWrite: Boolean = false) {
  private val ids = mutable.ArrayBuffer.empty[String]
  @volatile private var running = true
  @volatile private var failure: Option[Throwable] = None
  private val thread = new Thread(() => run(), s"app-writer-$prefix")

  def start(): AppLogWriter = {
    thread.setDaemon(true)
    thread.start()
    this
  }

  /** How many lines it wrote so far. */
  def written: Int = ids.synchronized(ids.size)

  /** Stops writing; returns every id written, in order. */
  def stop(): Seq[String] = {
    running = false
    thread.join(30000)
    failure.foreach(e => throw e)
    ids.synchronized(ids.toList)
  }

  /** The key at the path now; None while logrotate has moved it and not yet created the next. */
  private def currentKey(): Option[FileKey] =
    try Some(FileKey.of(path))
    catch { case _: java.nio.file.NoSuchFileException => None }

  private def run(): Unit = {
    var out = new FileOutputStream(path.toFile, true)
    var key = currentKey()
    val started = System.nanoTime()
    var n = 0
    try {
      while (running) {
        val due = ((System.nanoTime() - started) / 1e9 * linesPerSecond).toInt
        lock.lock()
        try {
          // Not while the path is missing: opened then, it would be created here, and logrotate's
          // `create` would then rename it to `service.log-<date>.backup`, outside the pattern.
          if (openEachWrite || currentKey().exists(now => !key.contains(now))) {
            out.close()
            out = new FileOutputStream(path.toFile, true)
            key = currentKey() // if moved again at once, the next round reopens once more
          }
          val batch = new StringBuilder
          while (n < due) {
            n += 1
            batch.append(s"$prefix-$n ${"x" * (n % 60)} end\n")
            ids.synchronized(ids += s"$prefix-$n")
          }
          out.write(batch.toString.getBytes(UTF_8))
          out.flush()
          if (openEachWrite) out.close()
        } finally lock.unlock()
        Thread.sleep(5) // pacing the writer, not waiting for anything
      }
    } catch { case e: Throwable => failure = Some(e) }
    finally out.close()
  }
}
