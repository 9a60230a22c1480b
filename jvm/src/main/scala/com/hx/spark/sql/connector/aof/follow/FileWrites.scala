package com.hx.spark.sql.connector.aof.follow

import java.io.Closeable
import java.util.concurrent.{Semaphore, TimeUnit}

import scala.util.Try

import com.hx.spark.sql.connector.aof.files.{DirectoryWatch, SourceFiles}

/**
 * Waits for a write to the source's directories: a task following files (real-time mode) sleeps
 * here between looks, and wakes as soon as a file there is created, written, renamed or deleted.
 * Through the JVM's one [[DirectoryWatch]] (inotify on Linux), which an executor's endpoints
 * share: a service per follower would run out of Linux's 128 a user. A wait never lasts longer
 * than `pollMs`, so what the watch misses or cannot see (a directory created later, a platform
 * that only polls, a multi-line record that ends by going quiet) is found by the next look all
 * the same.
 */
final class FileWrites(files: SourceFiles, pollMs: Long = FileWrites.PollMs) extends Closeable {
  private val writes = new Semaphore(0)
  private val registration = DirectoryWatch.register(
    Try(files.directories().map(_.path)).getOrElse(Nil) ++ files.roots,
    (_, _) => writes.release())

  /** Returns after a write, or after `timeoutMs` (at most `pollMs`) without one. */
  def await(timeoutMs: Long): Unit = {
    val wait = math.max(0L, math.min(timeoutMs, pollMs))
    writes.tryAcquire(wait, TimeUnit.MILLISECONDS)
    // Every write since is one wake-up: the next look sees them all.
    writes.drainPermits()
  }

  override def close(): Unit = registration.close()
}

object FileWrites {

  /** The longest a follower sleeps without a write: what a look that polls costs in latency. */
  val PollMs = 250L
}
