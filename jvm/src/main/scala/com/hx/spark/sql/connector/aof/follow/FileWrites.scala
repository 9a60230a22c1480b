package com.hx.spark.sql.connector.aof.follow

import java.io.Closeable
import java.lang.management.ManagementFactory
import java.nio.file.Path
import java.time.Clock
import java.util.concurrent.{Semaphore, TimeUnit}
import java.util.concurrent.atomic.AtomicBoolean

import com.hx.spark.sql.connector.aof.endpoint.LookTimes
import com.hx.spark.sql.connector.aof.files.listing.{DirectoryChanges, DirectoryWatch, SourceFiles}

/**
 * When a task following files (real-time mode) looks at them, and what it lists then. A look is
 * due when
 *  - a file in a watched directory was created, written, renamed or deleted: the look lists the
 *    directories heard ([[DirectoryChanges]]);
 *  - a file the last look saw is quiet enough for a look to say more of it (a multi-line record
 *    flushed, a copy told from a file written);
 *  - every `pollMs` while a directory cannot be watched (not made yet, unreadable, a platform
 *    that only polls): whole;
 *  - a thousand times as long as the last whole look after it, a minute to ten
 *    ([[LookTimes.fallbackAfterMs]]): whole, for what no watch tells (a file written over NFS).
 * Each no sooner than [[FileWrites.GapMs]] after the last look began, or, for a look of more CPU
 * time than that, [[FileWrites.LookShare]] times it, a second at most: a file written without a
 * pause is looked at once a gap, not once a write, and a task among many files spends a tenth of
 * a core looking.
 * Between looks the task sleeps in [[await]], woken by a write: a directory's first since the
 * last look, the only one the watch tells ([[rearm]]). So quiet files cost a follower nothing,
 * however many, and a written one a look of its directory a gap at most.
 *
 * Through the JVM's one [[DirectoryWatch]] (inotify on Linux), which an executor's followers and
 * endpoints share: a service per follower would run out of Linux's 128 a user.
 *
 * @param clock    what the due times are kept in: the follower's
 * @param register how the directories are watched: a model tells their changes as it decides,
 *                 late or as events lost, where no real watch can be made to on demand
 * @param cpuNanos the CPU time of the thread that looks: tests move it
 */
final class FileWrites(
    files: SourceFiles,
    clock: Clock = Clock.systemUTC(),
    pollMs: Long = FileWrites.PollMs,
    register: (SourceFiles, (Path, Boolean) => Unit) => DirectoryWatch.Registration =
      FileWrites.watch,
    cpuNanos: () => Long = () => FileWrites.Threads.getCurrentThreadCpuTime)
    extends FollowerLooks
    with Closeable {
  private val heardDirs = new DirectoryChanges
  private val wakes = new Semaphore(0)
  // Set on the watch's thread: a change since the last look began; the directories may be others.
  @volatile private var heard = true
  private val layout = new AtomicBoolean(true)
  private var watch: Option[DirectoryWatch.Registration] = None
  private var settleAtMs: Option[Long] = None
  private var pollAtMs: Option[Long] = None
  private var wholeAtMs = 0L
  private var lookBegan = 0L
  private var lookCpuBegan = 0L
  // No look is due sooner.
  private var gapEndsMs = 0L

  override def changes: Option[DirectoryChanges] = Some(heardDirs)

  override def due: Boolean = untilDueMs == 0L

  override def looking(): Unit = {
    heard = false
    lookBegan = clock.millis()
    lookCpuBegan = cpuNanos()
    if (wholeAtMs <= lookBegan) heardDirs.all()
    if (layout.getAndSet(false) || pollAtMs.nonEmpty) watchAgain() else rearm()
  }

  override def looked(settlesInMs: Option[Long], whole: Boolean): Unit = {
    val now = clock.millis()
    // The look's CPU, not its waits (ZooKeeper keeping the plan): a share of a core is what it
    // costs. Only a look of more CPU than the gap is spread so: a few files' cost a JVM that
    // compiles little a few milliseconds, and the gap bounds them, not a line's wait.
    val lookCpuMs = (cpuNanos() - lookCpuBegan) / 1000000L
    val shareMs =
      if (lookCpuMs <= FileWrites.GapMs) 0L
      else math.min(lookCpuMs * FileWrites.LookShare, FileWrites.LookShareMaxMs)
    gapEndsMs = lookBegan + math.max(FileWrites.GapMs, shareMs)
    settleAtMs = settlesInMs.map(now + _)
    if (whole) wholeAtMs = now + LookTimes.fallbackAfterMs(now - lookBegan)
  }

  /** Returns after a change, once a look is due, or after `timeoutMs`. */
  def await(timeoutMs: Long): Unit = {
    // Read first: heard after, the wait is not a gap's, and a write's wake-up ends it.
    val gap = heard
    val waitMs = math.max(0L, math.min(timeoutMs, untilDueMs))
    // Heard already, the rest of the gap is slept: the writes meanwhile need no wake-up each.
    if (gap) TimeUnit.MILLISECONDS.sleep(waitMs)
    else wakes.tryAcquire(waitMs, TimeUnit.MILLISECONDS)
    // Every change since is one wake-up: the next look sees them all.
    wakes.drainPermits()
  }

  override def close(): Unit = watch.foreach(_.close())

  // Whatever a look is due for, it waits for the gap: a file never quiet settles again and again.
  private def untilDueMs: Long = {
    val soonest =
      if (heard) gapEndsMs else (settleAtMs ++ pollAtMs).foldLeft(wholeAtMs)(math.min)
    math.max(0L, math.max(soonest, gapEndsMs) - clock.millis())
  }

  private def changed(dir: Path, layoutChanged: Boolean): Unit = {
    heardDirs.heard(dir, layoutChanged)
    if (layoutChanged) layout.set(true)
    heard = true
    wakes.release()
  }

  /**
   * The directories heard since the last look are watched again. Each is heard once between two
   * looks (its first change is all a look needs), so a file written all the time costs the
   * kernel and the JVM's watch an event a look, not one a write.
   */
  private def rearm(): Unit = watch.foreach { w =>
    w.again() match {
      case Some(again) => watch = Some(again)
      case None => watchAgain()
    }
  }

  /** Watches the directories again; where one cannot be, every look is whole, and comes soon. */
  private def watchAgain(): Unit = {
    val again = register(files, changed)
    watch.foreach(_.close())
    watch = Some(again)
    pollAtMs = if (again.complete) None else Some(clock.millis() + pollMs)
    if (!again.complete) heardDirs.all()
  }
}

object FileWrites {

  /** How a follower watches its directories: each heard once, until the next look. */
  def watch(files: SourceFiles, changed: (Path, Boolean) => Unit): DirectoryWatch.Registration =
    DirectoryWatch.registerFor(files, changed, once = true)

  // Once: the platform's lookup walks its providers at each call, 8% of a look's CPU.
  private val Threads = ManagementFactory.getThreadMXBean

  /** How often a follower looks while a directory cannot be watched. */
  val PollMs = 250L

  /**
   * The least time from a look's beginning to the next one's: a line written right after a look
   * waits for it at most, one written after a pause none. The looks of a steadily written file
   * are most of its task's CPU: 5 ms had 200 a second; 10 had half as many, but a line's median
   * wait from PySpark (`test_json_lines`) came within 2 ms of the real-time goal of 10 ms.
   */
  val GapMs = 8L

  /**
   * How many times as long as a look's CPU time (its listing, plan and journal), when longer than
   * [[GapMs]], the next waits from its beginning, whatever it is due for: a task among thousands
   * of files spends a tenth of a core looking at most.
   */
  val LookShare = 10L

  /**
   * The longest a look's CPU time spreads the next: the first look over thousands of new files
   * takes seconds, and a line written after it would wait ten times that.
   */
  val LookShareMaxMs = 1000L
}
