package com.hx.spark.sql.connector.aof.files.scan

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.nio.file.attribute.FileTime

import org.scalatest.LoneElement
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, TempDirectories}

/** `ignore.older` on a node: which files it leaves unread, and what that costs. */
class IgnoreOlderSuite extends AnyFunSuite with LoneElement with TempDirectories {
  private val day = 24L * 3600 * 1000

  private def write(file: Path, text: String): Path = Files.write(file, text.getBytes(UTF_8))

  /** `file` last modified `ms` before the clock's now. */
  private def aged(file: Path, clock: MovingClock, ms: Long): Path =
    Files.setLastModifiedTime(file, FileTime.fromMillis(clock.millis() - ms))

  private def gzip(file: Path): Path = {
    val process = new ProcessBuilder("gzip", "-q", file.toString).start() // keeps the mtime
    assert(process.waitFor() === 0)
    file.resolveSibling(file.getFileName.toString + ".gz")
  }

  private def known(m: FileMeta): KnownFile =
    KnownFile(m.key, m.lineEnd, m.fingerprint, m.tailAtLineEnd)

  private def scanner(dir: Path, clock: MovingClock): DirectoryScanner =
    new DirectoryScanner(SourceFiles(dir, "app.*"), 1024, clock = clock, ignoreOlderMs = Some(day))

  test("a file first seen that is older than the limit is reported ignored; a young one is not") {
    val dir = tempDirectory("older-")
    val clock = new MovingClock
    val old = aged(write(dir.resolve("app.log.1"), "old\npartial"), clock, day + 1000)
    val young = aged(write(dir.resolve("app.log"), "young\n"), clock, day - 60000)
    val s = scanner(dir, clock)
    val found = s.scan(Nil).map(m => m.path -> m).toMap
    assert(found(old.toString).ignored && found(old.toString).lineEnd === 4L)
    assert(!found(young.toString).ignored)
    assert(s.ignored === 1)
    // Tracked, it is a file like any other: read on from where the driver is.
    val tracked = s.scan(found.values.map(known).toSeq)
    assert(tracked.forall(!_.ignored) && s.ignored === 0)
    // The young one grows old while not tracked: ignored from then on, by its modification time.
    clock.advance(61000)
    assert(s.scan(Nil).forall(_.ignored))
    // A rename changes its ctime only: still old.
    Files.move(old, dir.resolve("app.log.2"))
    assert(s.scan(Nil).forall(_.ignored))
  }

  test("an old gzip file is never decompressed nor reported, unless its head is a known one") {
    val dir = tempDirectory("older-")
    val clock = new MovingClock
    val lines = (1 to 500).map(n => s"line $n\n").mkString
    val rotated = gzip(aged(write(dir.resolve("app.log.2"), lines), clock, 3 * day))
    val s = scanner(dir, clock)
    (1 to 3).foreach { _ =>
      assert(s.scan(Nil).isEmpty)
      assert(s.ignored === 1)
    }
    assert(s.decompressions === 0L)
    // A tracked file compressed by its rotation keeps its old mtime: it is the tracked file's
    // copy, so it is described whole, and it is not ignored.
    val live = aged(write(dir.resolve("app.log.1"), lines.replace("line", "LINE")), clock, 2 * day)
    val tracked = known(s.scan(Nil).loneElement)
    val copy = gzip(live)
    val found = s.scan(Seq(tracked)).map(m => m.path -> m).toMap
    assert(found.keySet === Set(copy.toString))
    assert(found(copy.toString).copyOf === Some(tracked.key) && !found(copy.toString).ignored)
    assert(s.decompressions > 0L)
    assert(s.ignored === 1) // app.log.2.gz still
    assert(Files.exists(rotated))
  }
}
