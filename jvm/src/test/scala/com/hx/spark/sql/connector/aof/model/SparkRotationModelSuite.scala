package com.hx.spark.sql.connector.aof.model

import java.nio.file.Path
import java.util.concurrent.ConcurrentHashMap

import scala.collection.JavaConverters._
import scala.collection.mutable
import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.streaming.StreamingQuery

import com.hx.spark.sql.connector.aof.testkit.{Queries, SparkTestKit}

/**
 * The rotation model of [[RotationModelSuite]] against a real query: a local session with the
 * embedded ZooKeeper, triggering as fast as it can, while a seed's operations run on the files at
 * moments its random numbers pick, and the query is stopped and started again from its
 * checkpoint now and then. Where the operations land among the query's looks is the machine's
 * timing, not the seed's: the seed fixes the operations, and a failing seed is printed to be run
 * again.
 */
class SparkRotationModelSuite extends SeededSuite with SparkTestKit {
  private val logs = Seq("a.log", "b.log", "c.log")
  private val opsPerSeed = 150

  /** Each batch's rows by batch id: a batch replayed after a restart replaces its rows. */
  private final class Sink {
    val batches = new ConcurrentHashMap[Long, Seq[Row]]()
    def rows: Seq[Row] = batches.asScala.toSeq.sortBy(_._1).flatMap(_._2)

    /** The last batch that holds any of `ids`, once every one of them is held. */
    def batchOf(ids: Seq[String]): Option[Long] = {
      val byId = batches.asScala.toSeq.flatMap { case (batch, rows) =>
        rows.map(_.getString(0).takeWhile(_ != ' ') -> batch)
      }.toMap
      if (ids.forall(byId.contains)) Some((-1L +: ids.map(byId)).max) else None
    }
  }

  private def start(world: RotationWorld, ckpt: Path, sink: Sink): StreamingQuery = {
    val write: (DataFrame, Long) => Unit = (batch, id) =>
      sink.batches.put(id, batch.select("value", "host", "path", "offset", "file_id").collect())
    spark.readStream
      .format("aof")
      .load(world.pattern)
      .writeStream
      .option("checkpointLocation", ckpt.toString)
      .foreachBatch(write)
      .start()
  }

  private def lost(query: StreamingQuery): String =
    Option(query.lastProgress).fold("0")(_.sources.head.metrics.get("bytesLost"))

  private def runSeed(seed: Long, done: mutable.ArrayBuffer[String]): Unit = {
    val rnd = new Random(seed)
    val dir = newDir(s"spark-model-$seed-")
    val world = new RotationWorld(dir, logs)
    val (ckpt, sink) = (newDir("ckpt"), new Sink)
    var query = start(world, ckpt, sink)
    try {
      (1 to opsPerSeed).foreach { _ =>
        val op = Seeds.nextOp(world, logs.size, rnd)
        op match {
          case d: Op.Delete =>
            // Read and committed: a batch run but not committed when the query stops is run
            // again from the files, and a file deleted meanwhile is lost to it.
            val ids = world.deleting(d)
            eventually(s"${ids.size} lines of a rotated file read and committed") {
              sink.batchOf(ids).exists(b => Option(query.lastProgress).exists(_.batchId >= b))
            }
          case _ => ()
        }
        done += op.toString
        world(op)
        // Now and then the next operations wait until the query has read what was just written,
        // so that they land among its triggers rather than all before its next look.
        if (op.isInstanceOf[Op.Append] && rnd.nextInt(6) == 0) {
          val last = world.written.last
          eventually(s"$last read")(sink.batchOf(Seq(last)).nonEmpty)
        }
        if (rnd.nextInt(100) < 1) {
          assert(lost(query) === "0")
          query.stop()
          done += "query restarted"
          query = start(world, ckpt, sink)
        }
      }
      world.settle()
      Queries.drain(query)
      assert(lost(query) === "0", "bytes counted lost, where every line was read")
      Queries.assertExactlyOnce(sink.rows, world.written.toSeq)
    } finally {
      query.stop()
      world.close()
    }
  }

  seedTests(
    "rotation model on a real query",
    "exactly once",
    Seeds.of(fast = 2, "AOF_MODEL_SPARK_SEEDS"),
    5)(runSeed)
}
