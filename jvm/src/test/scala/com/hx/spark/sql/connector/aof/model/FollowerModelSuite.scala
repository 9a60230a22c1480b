package com.hx.spark.sql.connector.aof.model

import java.nio.file.Paths
import java.time.Clock

import scala.collection.mutable
import scala.util.Random

import org.apache.spark.sql.Row

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity
import com.hx.spark.sql.connector.aof.files.listing.{DirectoryChanges, DirectoryWatch, SourceFiles}
import com.hx.spark.sql.connector.aof.follow.{FileWrites, FollowerLooks, HostFollower}
import com.hx.spark.sql.connector.aof.offset.HostOffsets
import com.hx.spark.sql.connector.aof.plan.PlanLimits
import com.hx.spark.sql.connector.aof.protocol.JournalPlans
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, Queries, Spark4Only, SparkTestKit}
import com.hx.spark.sql.connector.aof.zookeeper.{PlanJournal, ZkAccess}

/**
 * The rotation model in real-time mode: the same random operations on the same files
 * ([[RotationWorld]]), read by a [[HostFollower]] per batch, as a real-time task reads them. Between
 * operations a batch returns a random number of rows; then it ends, its offset committed, or it is
 * stopped before its end (a task lost, the query stopped): the next starts again from the same
 * offsets, with the plans its journal kept ([[JournalPlans]], written and read back as text). Every
 * line written must come out, each
 * `(file_id, offset)` always with the same line and each line always under the same key, and
 * nothing counted lost.
 *
 * A follower looks when its [[FileWrites]] says, as in a task: told of the changes by a
 * [[WatchedWorld]] (at once, after the next look, or as events lost), its clock moved a random
 * while after each operation, so that the looks due when a file settles and every so often come.
 * Each batch's follower is new, and its first look whole, as a task's.
 */
@Spark4Only
class FollowerModelSuite extends SeededSuite with SparkTestKit {
  private val host = "node"
  private val logs = Seq("a.log", "b.log", "c.log")
  private val opsPerSeed = 300
  private val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))

  /** A host's journal as ZooKeeper keeps it: the start it was written for, and as text. */
  private final class Journal {
    private var stored = Option.empty[(Option[HostOffsets], String)]

    /** Opened for a batch from `start`, as its task opens it (`JournalOpening`). */
    def open(start: Option[HostOffsets]): PlanJournal = {
      var segments = stored.fold(Seq.empty[HostOffsets]) { case (from, plans) =>
        JournalPlans.reopened(host, start, from, plans)
      }
      stored = Some(start -> JournalPlans.write(host, start, segments))
      new PlanJournal {
        override val planned: Seq[HostOffsets] = segments
        override def keep(end: HostOffsets): Unit = {
          segments = JournalPlans.kept(segments, end)
          stored = Some(start -> JournalPlans.write(host, start, segments))
        }
        override def close(): Unit = ()
      }
    }
  }

  /** A task's [[FileWrites]], its looks' beginnings and ends told to the model's watch. */
  private final class Watched(
      watch: WatchedWorld,
      clock: MovingClock,
      files: SourceFiles,
      onLooked: Boolean => Unit)
      extends FollowerLooks {
    private val writes = new FileWrites(
      files,
      clock,
      register = (_, changed) => {
        watch.listen(changed)
        Watched.Registration
      })
    override def changes: Option[DirectoryChanges] = writes.changes
    override def due: Boolean = writes.due
    override def looking(): Unit = {
      watch.rearm()
      writes.looking()
    }
    override def looked(settlesInMs: Option[Long], whole: Boolean): Unit = {
      writes.looked(settlesInMs, whole)
      watch.looked()
      onLooked(whole)
    }
  }

  private object Watched {
    object Registration extends DirectoryWatch.Registration {
      override def complete: Boolean = true
      override def close(): Unit = ()
    }
  }

  private final class Run(world: RotationWorld, dir: java.nio.file.Path, rnd: Random) {
    val watch = new WatchedWorld(dir, rnd)
    val clock = new MovingClock
    // The looks made, whole or in part.
    val looks: mutable.Map[Boolean, Int] = mutable.Map(true -> 0, false -> 0)
    private val counters = ReadCounters.register(spark.sparkContext)
    private val directory = s"$dir/**"
    private val spec = EndpointSpec(
      "run",
      ZkAccess("127.0.0.1:1", 30000),
      "/unused",
      SourceFiles(Paths.get(directory), world.pattern.substring(directory.length + 1)),
      1024,
      "key")
    private val journal = new Journal
    var committed: Option[HostOffsets] = None
    private var follower = start()
    private val batch = mutable.ArrayBuffer.empty[String]
    // Every row returned, committed or not: by key, and by line.
    private val lines = mutable.Map.empty[(String, Long), String]
    private val keys = mutable.Map.empty[String, (String, Long)]
    val rows: mutable.ArrayBuffer[Row] = mutable.ArrayBuffer.empty
    private val done = mutable.Set.empty[String]

    def lost: Long = counters.bytesLost.value

    private def start(): HostFollower =
      new HostFollower(
        host,
        committed,
        spec,
        limits,
        false,
        counters,
        journal.open(committed),
        Clock.systemUTC(), // the scanner's: files settle as they do in a task
        new Watched(watch, clock, spec.files, whole => looks(whole) += 1)
      )

    /** Returns up to `n` rows, fewer when the files have no more now; how many. */
    def read(n: Int): Int = {
      var returned = 0
      while (returned < n && follower.next()) {
        val r = follower.row
        val value = r.getUTF8String(0).toString
        val key = (r.getUTF8String(4).toString, r.getLong(3))
        assert(lines.getOrElseUpdate(key, value) === value, s"$key returned two lines")
        assert(keys.getOrElseUpdate(value, key) === key, s"'$value' returned under two keys")
        batch += value
        returned += 1
      }
      returned
    }

    /** Ends the batch: committed where its task stopped, or stopped and started again. */
    def end(commit: Boolean): Unit = {
      val at = follower.offset
      follower.close()
      if (commit) {
        committed = at
        batch.foreach { value =>
          val (fileId, offset) = keys(value)
          rows += Row(value, host, "", offset, fileId)
          done += value.takeWhile(_ != ' ')
        }
      }
      batch.clear()
      follower = start()
    }

    def hasCommitted(ids: Seq[String]): Boolean = ids.forall(done)

    /** Reads everything there is and commits it; whether nothing changed and nothing waits. */
    def settled(): Boolean = {
      val before = committed
      val read = this.read(Int.MaxValue)
      end(commit = true)
      read == 0 && committed == before && committed.forall(_.retired.isEmpty)
    }

    def close(): Unit = follower.close()
  }

  private def runSeed(seed: Long, done: mutable.ArrayBuffer[String]): Unit = {
    val rnd = new Random(seed)
    val dir = newDir(s"follow-$seed-")
    val world = new RotationWorld(dir, logs)
    val run = new Run(world, dir, rnd)
    try {
      (1 to opsPerSeed).foreach { _ =>
        val op = Seeds.nextOp(world, logs.size, rnd)
        op match {
          case d: Op.Delete =>
            // Only what a committed batch holds is deleted: nothing may be lost.
            val ids = world.deleting(d)
            var batches = 0
            while (!run.hasCommitted(ids) && batches < 10) {
              run.read(Int.MaxValue)
              run.end(commit = true)
              batches += 1
            }
            assert(run.hasCommitted(ids), s"${ids.filterNot(i => run.hasCommitted(Seq(i)))}")
          case _ => ()
        }
        world(op)
        run.watch.tell()
        run.clock.advance(rnd.nextInt(2000).toLong)
        done += op.toString
        covered(op.productPrefix) += 1
        val action = rnd.nextInt(100)
        if (action < 60) {
          val n = 1 + rnd.nextInt(20)
          done += s"${run.read(n)} of $n rows read"
        } else if (action < 70) {
          run.end(commit = true)
          done += "batch committed"
          covered("batches committed") += 1
        } else if (action < 80) {
          run.end(commit = false)
          done += "batch stopped, run again"
          covered("batches run again") += 1
        }
      }
      covered("lines") += world.written.size
      covered("whole looks") += run.looks(true)
      covered("looks at what changed") += run.looks(false)
      val (late, lost) = run.watch.figures
      covered("changes told after a look") += late
      covered("changes told as events lost") += lost
      world.settle()
      var batches = 0
      while (!run.settled() && batches < 20) batches += 1
      assert(run.committed.forall(_.retired.isEmpty), "retired files never given up")
      Queries.assertExactlyOnce(run.rows.toSeq, world.written.toSeq)
      assert(run.lost === 0L, "bytes counted lost, where every line was read")
    } finally {
      run.close()
      world.close()
    }
  }

  seedTests("follower model", "every line once, same ids", Seeds.of(fast = 20), 10)(runSeed)
}
