package com.hx.spark.sql.connector.aof.follow

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.nio.file.attribute.FileTime
import java.time.{Clock, Instant, ZoneOffset}

import scala.collection.mutable

import com.codahale.metrics.MetricRegistry
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.{ReadSettings, StartingOffsets}
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity
import com.hx.spark.sql.connector.aof.files.listing.{DirectoryChanges, SourceFiles}
import com.hx.spark.sql.connector.aof.files.records.RecordRule
import com.hx.spark.sql.connector.aof.metrics.Gauges
import com.hx.spark.sql.connector.aof.offset.HostOffsets
import com.hx.spark.sql.connector.aof.plan.PlanLimits
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.testkit.{Spark4Only, SparkTestKit}
import com.hx.spark.sql.connector.aof.zookeeper.{PlanJournal, ZkAccess}

/**
 * A host's files followed from inside a task (real-time mode): its offset stands after the last
 * row returned, wherever that is in a plan, and a task that starts where an earlier one started
 * returns that one's rows first, with the same ids, however the files changed since.
 */
@Spark4Only
class HostFollowerSuite extends AnyFunSuite with SparkTestKit {
  private lazy val counters = ReadCounters.register(spark.sparkContext)
  private val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))

  /** The plans kept, as a task's journal in ZooKeeper keeps them. */
  private final class Kept extends PlanJournal {
    val ends: mutable.ArrayBuffer[HostOffsets] = mutable.ArrayBuffer.empty
    override def planned: Seq[HostOffsets] = ends.toList
    override def keep(end: HostOffsets): Unit = ends += end
    override def close(): Unit = ()
  }

  /** For a task that is never run again: the tests of other things than replays. */
  private object NoJournal extends PlanJournal {
    override def planned: Seq[HostOffsets] = Nil
    override def keep(end: HostOffsets): Unit = ()
    override def close(): Unit = ()
  }

  // Later than any file's last write: every file is settled, every last record complete.
  private val later = Clock.fixed(Instant.now().plusSeconds(3600), ZoneOffset.UTC)

  /** Looks due only when the test says, as a task's when nothing is heard. */
  private final class Told extends FollowerLooks {
    var due = true
    var looks = 0
    override def changes: Option[DirectoryChanges] = None
    override def looking(): Unit = {
      due = false
      looks += 1
    }
    override def looked(settlesInMs: Option[Long], whole: Boolean): Unit = ()
  }

  private def follower(
      dir: Path,
      start: Option[HostOffsets],
      journal: PlanJournal = NoJournal,
      reads: EndpointSpec => EndpointSpec = identity,
      looks: FollowerLooks = FollowerLooks.Always): HostFollower = {
    val spec = EndpointSpec(
      "run",
      ZkAccess("127.0.0.1:1", 30000),
      "/unused",
      SourceFiles(dir, "app\\.log.*"),
      1024,
      "key")
    new HostFollower("host-a", start, reads(spec), limits, true, counters, journal, later, looks)
  }

  /** The row `f` is at: its value, file id and offset. */
  private def rowOf(f: HostFollower): (String, String, Long) =
    (f.row.getUTF8String(0).toString, f.row.getUTF8String(4).toString, f.row.getLong(3))

  private def next(f: HostFollower): (String, String, Long) = {
    assert(f.next(), "a row")
    rowOf(f)
  }

  private def all(f: HostFollower): Seq[(String, String, Long)] = {
    val rows = Iterator.continually(f).takeWhile(_.next()).map(rowOf).toList
    f.close()
    rows
  }

  private def append(file: Path, lines: String*): Unit =
    Files.write(
      file,
      lines.map(_ + "\n").mkString.getBytes(UTF_8),
      StandardOpenOption.CREATE,
      StandardOpenOption.APPEND)

  private val ways = Seq[(String, EndpointSpec => EndpointSpec)](
    "lines" -> identity,
    "lines, some dropped by a filter" -> (s =>
      s.copy(read = ReadSettings(lineFilter = Some(LineFilter(Nil, Seq("skip")))))),
    "multi-line records" -> (s =>
      s.copy(read = ReadSettings(grouping =
        Some(RecordRule(Some("^ "), patternStarts = false, 1 << 20, 1000L, 1 << 20, None)))))
  )

  ways.foreach { case (way, reads) =>
    test(s"a batch may end after any row ($way): a follower started there reads on, once each") {
      val dir = newDir("follow")
      append(dir.resolve("app.log"), "a-1", " a-1 more", "a-2 skip", "a-3", " a-3 more", "a-4")
      append(dir.resolve("app.log.1"), "b-1 skip", "b-2", " b-2 more", "b-3")
      val whole = all(follower(dir, None, reads = reads))
      assert(whole.size >= 4)
      (0 to whole.size).foreach { k =>
        val first = follower(dir, None, reads = reads)
        val head = (1 to k).map(_ => next(first))
        val at = first.offset
        first.close()
        assert(head ++ all(follower(dir, at, reads = reads)) === whole, s"stopped after $k rows")
      }
    }
  }

  test(
    "while it runs, the follower's gauges show its host's backlog and the age of its oldest byte") {
    val registry = new MetricRegistry
    Gauges.use(registry)
    try {
      val dir = newDir("lag")
      append(dir.resolve("app.log"), (1 to 100).map(n => s"line-$n"): _*)
      val written = Files.getLastModifiedTime(dir.resolve("app.log")).toMillis
      val f = follower(dir, None)
      def gauge(name: String) = registry.getGauges.get(s"endpoint._unused.$name").getValue
      assert(next(f)._1 === "line-1")
      // Looked at before the first row: the whole file behind, written an hour before `later`.
      assert(gauge("bytesBehindLatest") === Files.size(dir.resolve("app.log")))
      assert(gauge("secondsBehindLatest") === (later.millis() - written) / 1000L)
      while (f.next()) ()
      assert(gauge("bytesBehindLatest") === 0L && gauge("secondsBehindLatest") === 0L)
      f.close()
      assert(registry.getGauges.get("endpoint._unused.bytesBehindLatest") == null)
    } finally Gauges.forget(registry)
  }

  test("a follower that starts where another started returns that one's rows first, as they were") {
    val dir = newDir("replay")
    val log = dir.resolve("app.log")
    append(log, (1 to 5).map(i => s"a-$i"): _*)
    val kept = new Kept
    val first = all(follower(dir, None, kept))
    assert(kept.ends.size === 1)
    // Rotated since, as logrotate's `create` does: the file read is app.log.1 now, and a new
    // app.log, written to before it (older), is the first new file a plan would give an id.
    Files.move(log, dir.resolve("app.log.1"))
    append(log, "b-1", "b-2")
    val later = Files.getLastModifiedTime(log).toMillis + 60000
    Files.setLastModifiedTime(dir.resolve("app.log.1"), FileTime.fromMillis(later))
    val again = all(follower(dir, None, kept))
    assert(again.take(5) === first)
    assert(again.drop(5).map(_._1) === Seq("b-1", "b-2"))
    val planned = all(follower(dir, None))
    assert(planned.take(5) !== first, "without the plans, the same lines get other ids")
  }

  test("a follower says when a plan's rows were all returned, before it looks again") {
    val dir = newDir("drained")
    val log = dir.resolve("app.log")
    append(log, "a-1", "a-2")
    val told = new Told
    var drained = Seq.empty[(Int, Int)] // the rows returned and the looks made by then
    var rows = 0
    val f = new HostFollower(
      "host-a",
      None,
      EndpointSpec(
        "run",
        ZkAccess("127.0.0.1:1", 30000),
        "/unused",
        SourceFiles(dir, "app\\.log.*"),
        1024,
        "key"),
      limits,
      true,
      counters,
      NoJournal,
      later,
      told,
      () => drained :+= (rows -> told.looks)
    )
    while (f.next()) rows += 1
    append(log, "a-3")
    told.due = true
    while (f.next()) rows += 1
    f.close()
    assert(drained === Seq(2 -> 1, 3 -> 2))
  }

  test("a follower looks only when a look is due, and once more to give up a file it retired") {
    val dir = newDir("due")
    val log = dir.resolve("app.log")
    append(log, "a-1", "a-2")
    val told = new Told
    val f = follower(dir, None, looks = told)
    assert(next(f)._1 === "a-1" && next(f)._1 === "a-2" && !f.next())
    append(log, "a-3")
    assert(!f.next() && told.looks === 1, "no look is due: the write is not heard")
    Files.delete(log)
    told.due = true
    assert(!f.next() && f.offset.exists(_.retired.nonEmpty), "the file read to its end, gone")
    assert(!f.next() && f.offset.exists(_.retired.isEmpty), "given up at a look not due")
    assert(told.looks === 3)
    f.close()
  }
}
