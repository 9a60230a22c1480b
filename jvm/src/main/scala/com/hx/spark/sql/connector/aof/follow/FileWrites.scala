package com.hx.spark.sql.connector.aof.follow

import java.io.{Closeable, IOException}
import java.nio.file.{ClosedWatchServiceException, FileSystems, WatchService}
import java.nio.file.StandardWatchEventKinds.{ENTRY_CREATE, ENTRY_DELETE, ENTRY_MODIFY}
import java.util.concurrent.TimeUnit

import scala.util.Try

import com.hx.spark.sql.connector.aof.files.SourceFiles

/**
 * Waits for a write to the source's directories: a task following files (real-time mode) sleeps
 * here between looks, and wakes as soon as a file there is created, written, renamed or deleted.
 * Through inotify on Linux (Java's `WatchService`); a wait never lasts longer than `pollMs`, so
 * what the service misses or cannot see (a directory created later, a platform that only polls,
 * a multi-line record that ends by going quiet) is found by the next look all the same.
 */
final class FileWrites(files: SourceFiles, pollMs: Long = FileWrites.PollMs) extends Closeable {
  private val service: Option[WatchService] = Try(FileSystems.getDefault.newWatchService()).toOption
  service.foreach { s =>
    val directories = Try(files.directories().map(_.path)).getOrElse(Nil) ++ files.roots
    directories.distinct.foreach(d => Try(d.register(s, ENTRY_CREATE, ENTRY_MODIFY, ENTRY_DELETE)))
  }

  /** Returns after a write, or after `timeoutMs` (at most `pollMs`) without one. */
  def await(timeoutMs: Long): Unit = {
    val wait = math.max(0L, math.min(timeoutMs, pollMs))
    service match {
      case Some(s) =>
        try {
          var key = s.poll(wait, TimeUnit.MILLISECONDS)
          // Every event since is one wake-up: the next look sees them all.
          while (key != null) {
            key.pollEvents()
            key.reset()
            key = s.poll()
          }
        } catch { case _: ClosedWatchServiceException => Thread.sleep(wait) }
      case None => Thread.sleep(wait)
    }
  }

  override def close(): Unit = service.foreach { s =>
    try s.close()
    catch { case _: IOException => () }
  }
}

object FileWrites {

  /** The longest a follower sleeps without a write: what a look that polls costs in latency. */
  val PollMs = 250L
}
