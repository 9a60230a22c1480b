package com.hx.spark.sql.connector.aof.model

import java.nio.file.Path

import scala.collection.mutable
import scala.util.Random

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.container.{LineChunks, LineFormat}
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileKey, FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.records.RecordRule
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.plan.{FileRange, PlanLimits}
import com.hx.spark.sql.connector.aof.read.{FileRangeReader, LineBatch, ReadCounters}
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, Spark4Only, SparkTestKit}

/**
 * The kubelet's rotation of a container runtime's log held by a model: for each seed, random
 * chunks of two streams' messages, rotations wherever the messages are (a chunk written to the
 * renamed file before the reopen, now and then), compressions through a `.tmp` and deletes,
 * placed at random among the node's looks, the planning and the reading, and endpoints started
 * again. The node's scanner, the planner and the reader are the source's own, on real files;
 * every message must come out once, whole, on its stream, at its first chunk's offset, with
 * nothing counted lost. Every third seed reads multi-line records (each message one here): a
 * stream's last record is complete only at its next whole message, so rotations land inside
 * records, and a renamed file's records go on in the next.
 *
 * A rotation comes only once the file has a position where no message is open (and, for
 * records, after which both streams wrote a whole message): a file all inside one message is
 * beyond what is joined (`docs/kubernetes.md`).
 *
 * The node's clock stays an hour behind the files' times while the runtime writes, so no file
 * is quiet: a message open at a quiet file's end would rightly be a row of its own. At the end
 * every message is complete and the clock moves past the flush timeout.
 */
@Spark4Only
class KubeletModelSuite extends SeededSuite with SparkTestKit {
  import KubeletModelSuite.Read

  private val host = "node"
  private val opsPerSeed = 300
  private val HourMs = 3600L * 1000

  /** @param continuation a multi-line pattern: no message matches, each is a record of its own */
  private final class Run(
      dir: Path,
      limits: PlanLimits,
      continuation: Option[String],
      counters: ReadCounters = ReadCounters.register(spark.sparkContext))
      extends Batches(host, limits, counters) {
    private val files = SourceFiles(dir, "0\\.log.*")
    private val rule =
      RecordRule(continuation, patternStarts = false, 1 << 20, 2000L, 1 << 20, None, LineFormat.Cri)
    val clock: MovingClock = new MovingClock
    clock.advance(-HourMs)
    val inListing: mutable.Queue[() => Unit] = mutable.Queue.empty
    private var scanner = newScanner()
    val rows: mutable.ArrayBuffer[Read] = mutable.ArrayBuffer.empty

    private def newScanner() = new DirectoryScanner(
      files,
      1024,
      grouping = Some(rule),
      listed = { listing =>
        if (inListing.nonEmpty) inListing.dequeue()()
        listing
      },
      clock = clock)

    def restartEndpoint(): Unit = {
      scanner = newScanner()
      endpointRestarted()
    }

    protected def scan(
        known: Seq[KnownFile],
        retired: Map[String, KnownFile],
        remove: Set[FileKey]): Seq[FileMeta] =
      scanner.scan(known, retired)

    protected def rowsRead: Int = rows.size

    protected def readRange(range: FileRange): Unit = {
      val reader =
        new FileRangeReader(range, files, ReadSettings(grouping = Some(rule)), false, counters)
      val batch = new LineBatch(streamNames = LineChunks.RuntimeStreams)
      try {
        while (reader.nextBatch(batch)) {
          (0 until batch.columns.numRows).foreach { i =>
            val r = batch.columns.getRow(i)
            val value = r.getUTF8String(0).toString
            val stream = Option(r.getUTF8String(6)).fold("")(_.toString)
            rows += Read(value.takeWhile(_ != ' '), value, stream, r.getLong(3))
          }
        }
      } finally reader.close()
    }
  }

  private def runSeed(seed: Long, done: mutable.ArrayBuffer[String]): Unit = {
    val rnd = new Random(seed)
    val dir = newDir(s"kubelet-$seed-")
    // Every third seed reads multi-line records: a stream's last record is complete only at its
    // next message, so a rotation lands inside one of each stream's.
    val records = seed % 3 == 1
    val world = new KubeletWorld(dir, rnd, records)
    // Every other seed reads in small steps: batches end inside files, and a renamed file's
    // open tail is reached only some batches after its successor shows.
    val bytesMax = if (seed % 2 == 0) Some(300L) else None
    val limits = PlanLimits(bytesMax, StartingOffsets.Earliest, FileIdentity(true))
    val run = new Run(dir, limits, Some("^\\s").filter(_ => records))
    val delivered = (ids: Seq[String]) => !run.pending && ids.forall(run.rows.map(_.id).toSet)
    try {
      (1 to opsPerSeed).foreach { _ =>
        val op = world.nextOp(delivered)
        val place = rnd.nextInt(100)
        val where =
          if (place < 30) { run.trigger(); world(op); "between triggers" }
          else if (place < 50) {
            run.inListing.enqueue(() => world(op))
            run.trigger()
            while (run.inListing.nonEmpty) run.inListing.dequeue()()
            "in a look"
          } else if (place < 65 && op != "delete") { run.plan(); world(op); "after a plan" }
          else { world(op); "alone" }
        done += s"$op $where"
        covered(op) += 1
        covered(where) += 1
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
      world.settle()
      run.clock.advance(2 * HourMs)
      var triggers = 0
      while (!run.settled() && triggers < 20) triggers += 1
      val expected = world.written.map(m => Read(m.id, m.text, m.stream, m.offset))
      val twice = run.rows.groupBy(_.id).collect { case (id, rs) if rs.size > 1 => id }
      assert(twice.isEmpty, s"read more than once: ${twice.take(5)}")
      val wrong = expected.filterNot(run.rows.contains)
      assert(
        wrong.isEmpty,
        s"not read as written: ${wrong.take(3)}; rows ${run.rows
            .filter(r => wrong.take(3).exists(_.id == r.id))}")
      assert(run.rows.size === expected.size)
      assert(run.lost === 0L, "bytes counted lost, where every message was read")
      covered("messages") += expected.size
    } finally world.close()
  }

  seedTests("kubelet model", "every message once and whole", Seeds.of(fast = 20), 10)(runSeed)
}

private object KubeletModelSuite {

  /** A row as the model compares it: the message's id, its text, stream and offset. */
  final case class Read(id: String, value: String, stream: String, offset: Long)
}
