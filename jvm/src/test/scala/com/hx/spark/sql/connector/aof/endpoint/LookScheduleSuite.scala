package com.hx.spark.sql.connector.aof.endpoint

import java.nio.file.{Files, Path}

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.listing.{DirectoryChanges, SourceFiles}
import com.hx.spark.sql.connector.aof.testkit.TempDirectories

/**
 * When a serving endpoint's looks are whole, against real directories and the JVM's real watch.
 * The tasks a schedule submits are kept, not run: each test runs what it needs, so no timer
 * decides an outcome.
 */
class LookScheduleSuite extends AnyFunSuite with TempDirectories {
  private val root = tempDirectory("aof-schedule-")

  /** A schedule over `files`, its changes, and the delays of the tasks it submitted. */
  private def scheduled(
      files: SourceFiles): (LookSchedule, DirectoryChanges, mutable.Buffer[Long]) = {
    val changes = new DirectoryChanges
    val delays = mutable.Buffer.empty[Long]
    val schedule =
      new LookSchedule(
        files,
        changes,
        (_, delayMs) => delays += delayMs,
        () => (),
        () => (),
        () => 5L)
    changes.take() // a new run's first look: whole
    (schedule, changes, delays)
  }

  test("each start of serving looks whole, also after standing by: changes then told no one") {
    val dir = Files.createDirectories(root.resolve("served"))
    val (schedule, changes, _) = scheduled(SourceFiles(dir, "app.*"))
    assert(changes.take() === Some(Set.empty[Path]))
    schedule.start()
    assert(changes.take() === None)
    schedule.rearm()
    assert(changes.take() === Some(Set.empty[Path]))
    schedule.stop()
    schedule.start()
    assert(changes.take() === None)
    schedule.stop()
  }

  test("while a path's directory cannot be watched, every look is whole and one comes soon") {
    val made = Files.createDirectories(root.resolve("made"))
    val missing = root.resolve("missing")
    val (watched, watchedChanges, _) = scheduled(SourceFiles(made, "app.*"))
    val (unwatched, unwatchedChanges, delays) = scheduled(SourceFiles(missing, "app.*"))
    Seq(watched, unwatched).foreach(_.start())
    Seq(watchedChanges, unwatchedChanges).foreach(_.take())
    Seq(watched, unwatched).foreach(_.rearm())
    assert(watchedChanges.take() === Some(Set.empty[Path]))
    assert(unwatchedChanges.take() === None)
    assert(delays.contains(LookTimes.UnwatchedFallbackMs))
    Seq(watched, unwatched).foreach(_.stop())
  }

  test(
    "a look at every file comes a thousand times its last one's time after it, a minute to ten") {
    val dir = Files.createDirectories(root.resolve("fallback"))
    val changes = new DirectoryChanges
    val tasks = mutable.Buffer.empty[(() => Unit, Long)]
    var (notes, checks, now) = (0, 0, 0L)
    val schedule = new LookSchedule(
      SourceFiles(dir, "app.*"),
      changes,
      (task, delayMs) => tasks += (task -> delayMs),
      () => notes += 1,
      () => checks += 1,
      () => 5L,
      () => now)
    // Each minute, the next minute's task run: what ZooKeeper's watches may have missed is read.
    def minutes(n: Int): Unit = (1 to n).foreach { _ =>
      now += 60000L
      assert(tasks.last._2 === 60000L)
      tasks.last._1()
    }
    schedule.start()
    assert(notes === 1 && checks === 1 && changes.take() === None)
    // That look took 300 ms: the next is due 300 s after it, not a minute after the start.
    schedule.lookedWhole(300L)
    minutes(4)
    assert(notes === 1 && checks === 5 && changes.take() === Some(Set.empty[Path]))
    minutes(1)
    assert(notes === 2 && changes.take() === None)
    // Its look not come (the driver stopped calling): again in a minute.
    minutes(1)
    assert(notes === 3)
    // A quick one: a minute at least; a run's first, which reads every head: ten at most.
    schedule.lookedWhole(5L)
    minutes(1)
    assert(notes === 4)
    schedule.lookedWhole(3000L)
    minutes(9)
    assert(notes === 4)
    minutes(1)
    assert(notes === 5)
    schedule.stop()
  }
}
