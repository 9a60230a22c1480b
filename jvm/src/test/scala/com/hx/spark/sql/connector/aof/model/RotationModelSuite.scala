package com.hx.spark.sql.connector.aof.model

import java.nio.file.{Path, Paths}

import scala.collection.mutable
import scala.util.Random

import org.apache.spark.sql.Row

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.cleanup.Cleanup
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, FileStamp, KnownFile
}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.plan.{FileRange, PlanLimits}
import com.hx.spark.sql.connector.aof.read.{FileRangeReader, LineBatch, ReadCounters}
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, Queries, Spark4Only, SparkTestKit}

/**
 * The rotation rules held by a model: for each seed, random operations on three logs (appends,
 * half lines, rename rotations with a late reopen, copytruncate, gzip begun, written in parts and
 * finished apart, a whole run of logrotate with `compress` (renamed, reopened, compressed, the
 * original deleted, in one step), `olddir` moves, deletes of rotations read whole, which free
 * inodes for the next file), placed at random among the node's looks, the planning and the
 * reading: between two triggers, inside a look (after a listing, before the files it named are
 * looked at; or amid them, some looked at and some not: where no real rotation can be made to
 * land on demand), between planning a batch and reading it (what a batch replayed after a
 * restart meets), and endpoints started again. Now and then time passes and the node may remove
 * (`cleanup`) what the committed batches read to their end. The node hears which directories
 * changed as a watch tells it, at once, after its next look, or as events lost
 * ([[WatchedWorld]]), and lists only those. The node's scanner, the planner and the reader are
 * the source's own, on real files; what comes out must be every line written exactly once, with
 * nothing counted lost (nothing is deleted before it is read), and every file the node removed
 * read whole first.
 *
 * A seed is replayed exactly (`AOF_MODEL_SEED`), the file system's choice of inodes aside.
 */
@Spark4Only
class RotationModelSuite extends SeededSuite with SparkTestKit {
  private val host = "node"
  private val logs = Seq("a.log", "b.log", "c.log")
  private val opsPerSeed = 400
  // Where an operation lands, by the percentile drawn.
  private val Places = Seq(
    30 -> "between triggers",
    42 -> "in a look",
    50 -> "in a look, with the next in its second look",
    60 -> "amid a look's files",
    70 -> "after a plan",
    100 -> "alone")

  private final class Run(
      dir: Path,
      world: RotationWorld,
      limits: PlanLimits,
      rnd: Random,
      counters: ReadCounters = ReadCounters.register(spark.sparkContext))
      extends Batches(host, limits, counters) {
    private val inListing = mutable.Queue.empty[() => Unit]
    // An operation to run at a look's nth `stat` (about its nth file), and the look's stats so far.
    private var amidFiles = Option.empty[(Int, () => Unit)]
    private var stats = 0
    private val clock = new MovingClock
    private val directory = s"$dir/**"
    private val regex = world.pattern.substring(directory.length + 1)
    private val watch = new WatchedWorld(dir, rnd)
    private var scanner = newScanner()
    val rows: mutable.ArrayBuffer[Row] = mutable.ArrayBuffer.empty
    private val delivered = mutable.Set.empty[String]

    private def newScanner() = new DirectoryScanner(
      SourceFiles(Paths.get(directory), regex),
      1024,
      listed = { listing =>
        if (inListing.nonEmpty) {
          inListing.dequeue()()
          watch.tell()
        }
        stats = 0
        listing
      },
      stat = { path =>
        stats += 1
        amidFiles.filter(_._1 <= stats).foreach { case (_, op) =>
          amidFiles = None
          op()
          watch.tell()
        }
        FileStamp.of(path)
      },
      clock = clock,
      cleanup = Some(Cleanup(None, RotationModelSuite.CleanupAfterMs)),
      changes = Some(watch.changes())
    )

    /**
     * Time passes (`cleanup.after`), then a trigger whose plan lets the node remove what the
     * committed batches read to their end: the files it removed, each checked read whole.
     */
    def cleanUp(): Seq[String] = {
      // For this trigger only: every later file time is the file system's own again.
      clock.advance(RotationModelSuite.CleanupAfterMs)
      world.timePasses(clock.millis())
      removedSoFar.clear()
      cleaning = true
      try trigger()
      finally {
        cleaning = false
        clock.advance(-RotationModelSuite.CleanupAfterMs)
      }
      removedSoFar.toSeq
    }

    // What the node removed since the last cleanUp: a standing request lets it remove again at
    // its later looks, which the world learns of as they happen.
    private val removedSoFar = mutable.ArrayBuffer.empty[String]

    /** An endpoint started again: nothing of what the last one kept. */
    def restartEndpoint(): Unit = {
      scanner = newScanner()
      endpointRestarted()
    }

    protected def scan(
        known: Seq[KnownFile],
        retired: Map[String, KnownFile],
        remove: Set[FileKey]): Seq[FileMeta] = {
      val byKey = world.byKey
      watch.tell()
      watch.rearm()
      val files = scanner.scan(known, retired, remove)
      watch.looked()
      val removed = scanner.removedByLastScan.flatMap(k => byKey.get(k).map(k -> _))
      removed.foreach { case (_, f) =>
        assert(hasDelivered(f.ids.toSeq), s"${f.path} removed before all of it was read")
      }
      world.removedBySource(removed)
      removedSoFar ++= removed.map { case (_, f) => dir.relativize(f.path).toString }
      files
    }

    protected def rowsRead: Int = rows.size

    /**
     * `ops` placed after the next trigger's listings, one each (a look lists each directory the
     * path names, `dir` then `dir/old`, and may look twice); those left run after it.
     */
    def duringLook(ops: (() => Unit)*): Unit = {
      ops.foreach(inListing.enqueue(_))
      trigger()
      while (inListing.nonEmpty) inListing.dequeue()() // the trigger listed fewer times
    }

    /** `op` run at the next trigger's look's `nth` `stat` (about its nth file), or after it. */
    def amidLook(nth: Int, op: () => Unit): Unit = {
      amidFiles = Some(nth -> op)
      trigger()
      amidFiles.foreach { case (_, left) => amidFiles = None; left() }
    }

    /** How often a change was heard only after a look, and how often as events lost. */
    def heardLateAndLost: (Int, Int) = watch.figures

    def hasDelivered(ids: Seq[String]): Boolean = ids.forall(delivered)
    def hasDelivered(id: String): Boolean = delivered(id)

    protected def readRange(range: FileRange): Unit = {
      val reader = new FileRangeReader(
        range,
        SourceFiles(Paths.get(directory), regex),
        ReadSettings(),
        false,
        counters)
      val batch = new LineBatch()
      try {
        while (reader.nextBatch(batch)) {
          (0 until batch.columns.numRows).foreach { i =>
            val r = batch.columns.getRow(i)
            val value = r.getUTF8String(0).toString
            rows += Row(value, host, r.getUTF8String(2).toString, r.getLong(3), range.fileId)
            delivered += value.takeWhile(_ != ' ')
          }
        }
      } finally reader.close()
    }
  }

  /** One seed: its operations, placed at random, then everything read. */
  private def runSeed(seed: Long, done: mutable.ArrayBuffer[String]): Unit = {
    val rnd = new Random(seed)
    val dir = newDir(s"model-$seed-")
    val world = new RotationWorld(dir, logs)
    // Every other seed reads in small steps, so that batches end inside files and rotations land
    // between a file's batches.
    val bytesMax = if (seed % 2 == 0) Some(2000L) else None
    val run = new Run(
      dir,
      world,
      PlanLimits(bytesMax, StartingOffsets.Earliest, FileIdentity(checked = true)),
      new Random(seed + 1))
    try {
      (1 to opsPerSeed).foreach { _ =>
        val op = Seeds.nextOp(world, logs.size, rnd)
        op match {
          case d: Op.Delete =>
            // Only what was read is deleted: nothing may be lost.
            val ids = world.deleting(d)
            var triggers = 0
            while (!run.hasDelivered(ids) && triggers < 10) {
              run.trigger()
              triggers += 1
            }
            assert(
              run.hasDelivered(ids),
              s"${ids.filterNot(run.hasDelivered(_)).take(5)} of $d never read; files " +
                s"${world.describe}; offsets ${run.committed.json()}")
          case _ => ()
        }
        val place = rnd.nextInt(100)
        done += s"$op ${Places.find(place < _._1).get._2}"
        if (place < 30) { run.trigger(); world(op) }
        else if (place < 42) run.duringLook(() => world(op))
        else if (place < 50) {
          // Two in one trigger: this one after its first listing, the next (drawn then, on the
          // files as they are) after its third: the second look's, when it looks twice, as a
          // rotation that overtakes both listings of a look.
          val next = () =>
            Seeds.nextOp(world, logs.size, rnd) match {
              case _: Op.Delete => () // deletes wait for reads, which cannot run inside a look
              case op =>
                done += s"$op in the same trigger"
                covered(op.productPrefix) += 1
                world(op)
            }
          run.duringLook(() => world(op), () => (), next)
        } else if (place < 60) run.amidLook(1 + rnd.nextInt(12), () => world(op))
        else if (place < 70) { run.plan(); world(op) }
        else world(op)
        covered(op.productPrefix) += 1
        covered(Places.find(place < _._1).get._2) += 1
        if (rnd.nextInt(100) < 5) {
          val removed = run.cleanUp()
          done += s"time passed: removed ${removed.mkString(", ")}"
          covered("time passed, cleanup") += 1
          covered("files removed") += removed.size
        }
        // The node's watch has it look on its own: its answer may be planned after later ops.
        if (rnd.nextInt(100) < 20) {
          run.nodeLooks()
          done += "the node looked"
          covered("the node looked") += 1
        }
        if (rnd.nextInt(100) < 2) {
          run.restartEndpoint()
          done += "endpoint restarted"
          covered("endpoint restarted") += 1
        }
      }
      covered("inodes reused") += world.reusedInodes
      val (late, lost) = run.heardLateAndLost
      covered("changes heard after a look") += late
      covered("changes heard as events lost") += lost
      covered("lines") += world.written.size
      world.settle()
      var triggers = 0
      while (!run.settled() && triggers < 20) triggers += 1
      assert(run.committed.hosts.values.forall(_.retired.isEmpty), "retired files never given up")
      Queries.assertExactlyOnce(run.rows.toSeq, world.written.toSeq)
      assert(run.lost === 0L, "bytes counted lost, where every line was read")
    } finally world.close()
  }

  seedTests("rotation model", "every line exactly once", Seeds.of(fast = 20), 10)(runSeed)
}

object RotationModelSuite {

  /** `cleanup.after` of the model's node: the time that passes at once, now and then. */
  val CleanupAfterMs: Long = 300000L
}
