package com.hx.spark.sql.connector.aof.follow

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.time.{Clock, Instant, ZoneId, ZoneOffset}
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.endpoint.LookTimes
import com.hx.spark.sql.connector.aof.files.listing.{DirectoryWatch, PathPattern, SourceFiles}
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, Spark4Only, TempDirectories}
import com.hx.spark.sql.connector.aof.testkit.Polling.eventually

/**
 * When a follower looks, against real directories and the JVM's real watch: once a write is
 * heard (then at the directories heard), once a file settles, every so often whole, and at every
 * poll while a directory cannot be watched; each no sooner than a gap after the last look.
 * Followers sleep until a write: many of them in one executor (a query following many hosts'
 * files, several queries), more than Linux's 128 inotify instances a user, each woken by a write
 * to its directory rather than by its wait running out.
 */
@Spark4Only
class FileWritesSuite extends AnyFunSuite with TempDirectories {
  private val root = tempDirectory("aof-writes-")

  /** A look as the follower makes one: what it lists, None when every directory. */
  private def look(writes: FileWrites, settlesInMs: Option[Long] = None): Option[Set[Path]] = {
    writes.looking()
    val listed = writes.changes.get.take()
    writes.looked(settlesInMs, whole = listed.isEmpty)
    listed
  }

  test("a look is due once a write is heard, and lists the directory heard") {
    val dir = Files.createDirectories(root.resolve("heard"))
    val writes = new FileWrites(SourceFiles(dir, "app\\.log"), new MovingClock)
    try {
      assert(writes.due && look(writes) === None)
      assert(!writes.due)
      append(dir)
      eventually("the write heard", 10000)(writes.due)
      assert(look(writes).exists(_.contains(dir)))
    } finally writes.close()
  }

  test("a directory written all the time is heard once between two looks, and after each") {
    val (busy, marker) = (root.resolve("busy"), root.resolve("marker"))
    Seq(busy, marker).foreach(Files.createDirectories(_))
    val heard = new ConcurrentHashMap[Path, AtomicInteger]()
    val files = SourceFiles(Seq(busy, marker).map(d => PathPattern(d.toString, "app\\.log")))
    val clock = new MovingClock
    val writes = new FileWrites(
      files,
      clock,
      register = (f, changed) =>
        FileWrites.watch(
          f,
          (dir, layout) => {
            heard.computeIfAbsent(dir, _ => new AtomicInteger).incrementAndGet()
            changed(dir, layout)
          })
    )
    def times(dir: Path): Int = Option(heard.get(dir)).fold(0)(_.get)
    try {
      look(writes)
      (1 to 3).foreach { n =>
        append(busy)
        eventually(s"write $n heard", 10000)(times(busy) == n)
        (1 to 5).foreach(_ => append(busy))
        // One watch tells the JVM's changes in order: once the marker's is heard, so were those.
        append(marker)
        eventually(s"the marker's write $n heard", 10000)(times(marker) == n)
        assert(times(busy) === n)
        clock.advance(FileWrites.GapMs)
        assert(writes.due && look(writes).exists(_ === Set(busy, marker)))
      }
    } finally writes.close()
  }

  /** A clock only the test moves: a gap of a few milliseconds is not a machine's pause. */
  private final class HandClock extends Clock {
    @volatile var nowMs: Long = 1000000L
    // The looking thread's CPU time, which a look takes as its cost.
    @volatile var cpuNs: Long = 0L
    override def millis(): Long = nowMs
    override def instant(): Instant = Instant.ofEpochMilli(nowMs)
    override def getZone: ZoneId = ZoneOffset.UTC
    override def withZone(zone: ZoneId): Clock = this
  }

  /** Changes told by the test, where a real watch tells them when the kernel does. */
  private final class Told {
    @volatile var tell: (Path, Boolean) => Unit = (_, _) => ()
    def register(
        files: SourceFiles,
        changed: (Path, Boolean) => Unit): DirectoryWatch.Registration =
      new DirectoryWatch.Registration {
        tell = changed
        override def complete: Boolean = true
        override def close(): Unit = ()
      }
  }

  /** A follower's looks of `name`, on a clock the test moves, told changes by the test. */
  private def toldOf(name: String)(body: (Path, HandClock, Told, FileWrites) => Unit): Unit = {
    val dir = root.resolve(name)
    val clock = new HandClock
    val told = new Told
    val writes = new FileWrites(
      SourceFiles(dir, "app\\.log"),
      clock,
      register = told.register,
      cpuNanos = () => clock.cpuNs)
    try body(dir, clock, told, writes)
    finally writes.close()
  }

  test("a change heard right after a look is looked at once the gap since that look is over") {
    toldOf("gap") { (dir, clock, told, writes) =>
      look(writes)
      told.tell(dir, false)
      assert(!writes.due, "due within the gap")
      clock.nowMs += FileWrites.GapMs - 1
      assert(!writes.due, "due within the gap")
      clock.nowMs += 1
      assert(writes.due && look(writes).exists(_.contains(dir)))
      clock.nowMs += FileWrites.GapMs
      told.tell(dir, false)
      assert(writes.due, "a change heard after the gap waits")
      // A look of a few files' CPU, within the gap: the gap alone spaces the next.
      writes.looking()
      clock.cpuNs += (FileWrites.GapMs - 1) * 1000000L
      writes.looked(None, whole = false)
      told.tell(dir, false)
      clock.nowMs += FileWrites.GapMs
      assert(writes.due, "a look of less CPU than the gap spread the next beyond it")
    }
  }

  test("a file that settles again and again is looked at once a gap, as one written") {
    toldOf("settling") { (_, clock, _, writes) =>
      look(writes, settlesInMs = Some(1L))
      clock.nowMs += 1L
      assert(!writes.due, "due within the gap")
      clock.nowMs += FileWrites.GapMs - 1L
      assert(writes.due)
    }
  }

  test("a look of much CPU has the next wait ten times as long from its start, a second at most") {
    toldOf("long") { (dir, clock, told, writes) =>
      val began = clock.nowMs
      writes.looking()
      clock.nowMs += 100L // ZooKeeper keeping the plan waited for, no CPU
      clock.cpuNs += 40L * 1000000L // among many files
      told.tell(dir, false)
      writes.looked(None, whole = true)
      clock.nowMs = began + 40L * FileWrites.LookShare - 1
      assert(!writes.due, "due before ten times the look")
      clock.nowMs += 1
      assert(writes.due)
      val second = clock.nowMs
      writes.looking()
      clock.cpuNs += 3000L * 1000000L // the first look over thousands of new files
      writes.looked(None, whole = true)
      told.tell(dir, false)
      clock.nowMs = second + FileWrites.LookShareMaxMs - 1
      assert(!writes.due, "due before a second")
      clock.nowMs += 1
      assert(writes.due, "a look of seconds spread the next beyond a second")
    }
  }

  test("the writes heard within the gap wake a waiting task once, at the gap's end") {
    val dir = root.resolve("one-wake")
    val told = new Told
    val writes = new FileWrites(SourceFiles(dir, "app\\.log"), register = told.register)
    try {
      val began = System.nanoTime()
      look(writes)
      (1 to 3).foreach(_ => told.tell(dir, false))
      writes.await(waitMs)
      val tookMs = (System.nanoTime() - began) / 1000000L
      assert(tookMs >= FileWrites.GapMs - 1 && tookMs < waitMs / 2, s"woken after $tookMs ms")
      assert(writes.due)
    } finally writes.close()
  }

  test("a look is due once a file the last look saw settles, and every so often, whole") {
    val dir = Files.createDirectories(root.resolve("settles"))
    val clock = new MovingClock
    val writes = new FileWrites(SourceFiles(dir, "app\\.log"), clock)
    try {
      look(writes, settlesInMs = Some(30000L))
      assert(!writes.due)
      clock.advance(30000L)
      assert(writes.due && look(writes) === Some(Set.empty[Path]))
      clock.advance(LookTimes.FallbackMs)
      assert(writes.due && look(writes) === None)
    } finally writes.close()
  }

  test("while a directory cannot be watched, a whole look is due at every poll") {
    val missing = root.resolve("missing")
    val clock = new MovingClock
    val writes = new FileWrites(SourceFiles(missing, "app\\.log"), clock, pollMs = 30000L)
    try {
      assert(look(writes) === None && !writes.due)
      clock.advance(30000L)
      assert(writes.due && look(writes) === None)
    } finally writes.close()
  }

  test("a directory made where a pattern's directories are is watched from then on") {
    val pods = Files.createDirectories(root.resolve("pods"))
    val writes =
      new FileWrites(SourceFiles(Seq(PathPattern(s"$pods/*/*", "app\\.log"))), new MovingClock)
    try {
      look(writes)
      val made = Files.createDirectories(pods.resolve("pod-a").resolve("app"))
      eventually("the directory made heard", 10000)(writes.due)
      assert(look(writes) === None) // the directories are others now
      append(made)
      eventually("the write heard", 10000)(writes.due)
      assert(look(writes).exists(_.contains(made)))
    } finally writes.close()
  }

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
