package com.hx.spark.sql.connector.aof.files.copies

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.time.{Clock, Instant, ZoneOffset}
import java.util.concurrent.TimeUnit.SECONDS

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileStamp}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{PlanLimits, Planner, Ranges}
import com.hx.spark.sql.connector.aof.testkit.TempDirectories

/**
 * A file written since the last trigger and its copy, both first seen in one look: logrotate's
 * `copytruncate` run while the node looks. Each case runs the node's scanner and the planner
 * over three triggers and checks that every byte is planned once.
 */
class NewFileCopiesSuite extends AnyFunSuite with TempDirectories {
  private val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))
  // File times as the scanner sees them: the original's long settled, the copy's made now.
  private val now = Instant.now()
  private val clock = Clock.fixed(now, ZoneOffset.UTC)
  private val nowNanos = SECONDS.toNanos(now.getEpochSecond) + now.getNano

  private def write(file: Path, text: String): Path =
    Files.write(file, text.getBytes(UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND)

  private def lines(ns: Range, width: Int) = ns.map(n => s"line $n ${"x" * width}\n").mkString

  /**
   * A scanner of app.log.* whose look at `copy` first runs `rotate`, after app.log was described:
   * the copy is listed before it exists, as the name an older rotation had.
   */
  private def scanner(dir: Path, copy: Path)(rotate: => Unit): DirectoryScanner = {
    var rotated = false
    val stat = (p: Path) => {
      if (p == copy && !rotated) {
        rotated = true
        rotate
      }
      val s = FileStamp.of(p)
      val at = if (p == copy) nowNanos else s.modifiedNanos - SECONDS.toNanos(10)
      s.copy(modifiedNanos = at, changedNanos = at)
    }
    new DirectoryScanner(
      SourceFiles(dir, "app\\.log.*"),
      1024,
      listed = listing => (listing :+ copy).distinct,
      stat = stat,
      clock = clock)
  }

  /** What three triggers plan, after `between` runs between the first two. */
  private def planned(scanner: DirectoryScanner)(between: => Unit): Seq[(String, Long, Long)] = {
    // The host known, with no file yet: a file seen from now on is read from its start.
    val start = Planner.plan(AofOffset.Empty, Map("h" -> Nil), limits).end
    val ends = Iterator.iterate(start) { from =>
      val files = scanner.scan(Planner.known(from, "h"), Planner.retired(from, "h"))
      val plan = Planner.plan(from, Map("h" -> files), limits)
      assert(plan.losses.isEmpty)
      if (from eq start) between
      plan.end
    }
    ends.take(4).toList.sliding(2).toList.flatMap { case Seq(from, to) =>
      Ranges
        .between(from, to)
        .filter(r => r.until > r.from)
        .map(r => (Paths.get(r.path).getFileName.toString, r.from, r.until))
    }
  }

  Seq("short" -> 5, "long" -> 80).foreach { case (what, width) =>
    test(s"copied and cut while it was looked at ($what lines): each line planned once") {
      val dir = tempDirectory("new-copies-")
      val file = write(dir.resolve("app.log"), lines(1 to 20, width))
      val copy = dir.resolve("app.log.1")
      val ranges = planned(scanner(dir, copy) {
        write(file, lines(21 to 21, width))
        Files.copy(file, copy)
        Files.write(file, Array.emptyByteArray)
      })(write(file, "new 1\n"))
      val copied = lines(1 to 21, width).length.toLong
      assert(ranges.toSet === Set(("app.log.1", 0L, copied), ("app.log", 0L, 6L)))
      assert(ranges.size === 2)
    }

    test(s"seen between its copy and its truncate ($what lines): each line planned once") {
      val dir = tempDirectory("new-copies-")
      val file = write(dir.resolve("app.log"), lines(1 to 20, width))
      val copy = dir.resolve("app.log.1")
      val ranges = planned(scanner(dir, copy)(Files.copy(file, copy))) {
        Files.write(file, Array.emptyByteArray)
        write(file, "new 1\n")
      }
      val whole = lines(1 to 20, width).length.toLong
      assert(ranges.toSet === Set(("app.log", 0L, whole), ("app.log", 0L, 6L)))
      assert(ranges.size === 2)
    }
  }

  test("two settled files alike, both new, are two files: each is read") {
    val dir = tempDirectory("new-copies-")
    val text = lines(1 to 20, 5)
    write(dir.resolve("app.log"), text)
    write(dir.resolve("app.log.1"), text)
    val ranges = planned(scanner(dir, dir.resolve("unused"))(()))(())
    val length = text.length.toLong
    assert(ranges.toSet === Set(("app.log", 0L, length), ("app.log.1", 0L, length)))
  }
}
