package com.hx.spark.sql.connector.aof.files.copies

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileKey}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{PlanLimits, Planner, Ranges}
import com.hx.spark.sql.connector.aof.testkit.{
  FreedInodes, MovingClock, Spark4Only, TempDirectories
}

/**
 * A rotation's copy given the inode of a tracked file deleted a moment before, as ext4 gives
 * one at once: under a tracked key, yet another file, and a copy all the same.
 */
@Spark4Only
class ReusedInodeCopiesSuite extends AnyFunSuite with TempDirectories {
  private val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))

  private def lines(name: String, ns: Range): String = ns.map(n => s"$name line $n\n").mkString

  private def write(file: Path, text: String): Path =
    Files.write(file, text.getBytes(UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND)

  private def truncate(file: Path): Unit = Files.write(file, Array.emptyByteArray)

  // The node answers its standing request again as files change: here after a copytruncate
  // whose copy took app.log.1's freed inode, before the driver's next request, which knows the
  // lines app.log was written since its last truncate. The answer kept from the first look said
  // the copy was no copy: true of the request then, not of the next one.
  test("a copytruncate's copy under a deleted tracked file's inode continues its original") {
    val dir = tempDirectory("aof-reused-")
    val (log, older) = (dir.resolve("app.log"), dir.resolve("app.log.1"))
    write(log, lines("first", 1 to 300))
    write(older, lines("older", 1 to 300))
    val inodes = new FreedInodes
    val clock = new MovingClock
    val scanner =
      new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024, stat = inodes.stat, clock = clock)
    val ask = (start: AofOffset) => scanner.scan(Planner.known(start, "h"))
    val start = Planner.plan(AofOffset.Empty, Map("h" -> ask(AofOffset.Empty)), limits).end
    truncate(log)
    write(log, lines("second", 1 to 2)) // shorter than the sample: known by a short head
    val read = Planner.plan(start, Map("h" -> ask(start)), limits).end
    // The next copytruncate, app.log.1 deleted first and its inode given to the copy.
    write(log, lines("second", 3 to 40))
    val olderKey = FileKey.of(older)
    Files.delete(older)
    val copy = Files.copy(log, dir.resolve("app.log.2"))
    inodes.give(copy, olderKey)
    truncate(log)
    write(log, lines("third", 1 to 1))
    clock.advance(1000L) // every file settled: its answer is kept
    ask(start) // the standing request, answered again
    val plan = Planner.plan(read, Map("h" -> ask(read)), limits)
    val ranges = Ranges
      .between(read, plan.end)
      .map(r => (Paths.get(r.path).getFileName.toString, r.from, r.until))
    val second = lines("second", 1 to 2).length.toLong
    assert(
      ranges.toSet === Set(
        ("app.log.2", second, lines("second", 1 to 40).length.toLong),
        ("app.log", 0L, lines("third", 1 to 1).length.toLong)))
    assert(plan.losses.isEmpty)
  }
}
