package com.hx.spark.sql.connector.aof.follow

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.SourceFiles

/**
 * Followers sleep until a write: many of them in one executor (a query following many hosts'
 * files, several queries), more than Linux's 128 inotify instances a user, each woken by a write
 * to its directory rather than by its wait running out.
 */
class FileWritesSuite extends AnyFunSuite {
  private val followers = 200
  // Far longer than a wake-up takes: a follower that was not woken returns only after it.
  private val waitMs = 10000L

  test(s"$followers followers in one JVM are each woken by a write, not by their wait's end") {
    val dirs = (1 to followers).map(i => Files.createTempDirectory(s"writes-$i-"))
    val writes = dirs.map(d => new FileWrites(SourceFiles(d, "app\\.log"), pollMs = waitMs))
    try {
      writes.zip(dirs).foreach { case (w, dir) =>
        val began = System.nanoTime()
        append(dir)
        w.await(waitMs)
        assert((System.nanoTime() - began) / 1000000L < waitMs / 2, s"$dir: not woken")
      }
    } finally {
      writes.foreach(_.close())
      dirs.foreach { d =>
        Files.deleteIfExists(d.resolve("app.log"))
        Files.deleteIfExists(d)
      }
    }
  }

  private def append(dir: Path): Unit =
    Files.write(
      dir.resolve("app.log"),
      "a line\n".getBytes(UTF_8),
      StandardOpenOption.CREATE,
      StandardOpenOption.APPEND)
}
