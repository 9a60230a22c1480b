package com.hx.spark.sql.connector.aof.stream

import java.nio.file.{Files, Path}
import java.util.concurrent.locks.ReentrantLock

import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{
  AppLogWriter,
  Logrotate,
  Queries,
  Spark4Only,
  SparkTestKit
}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/**
 * The real logrotate, forced twenty times a second apart (six for each compressor but gzip),
 * against a writer appending 5,000 lines a second: every line exactly once, nothing counted lost.
 * Counted, not timed: a loaded machine rotates as often, only more slowly.
 */
@Spark4Only
class LogrotateSuite extends AnyFunSuite with SparkTestKit {
  private case class Mode(
      name: String,
      directives: Seq[String],
      pattern: String,
      rotations: Int = 20) {
    // logrotate itself loses what is written between its copy and its truncate, and, compressing
    // at once, what the application writes to the renamed file after it was compressed.
    val pauseWriter: Boolean =
      directives.contains("copytruncate") ||
        (directives.contains("compress") && !directives.contains("delaycompress"))
  }

  private val create = Mode("create", Seq("create"), "service\\.log(\\.\\d+)?")
  private val copytruncate = Mode("copytruncate", Seq("copytruncate"), "service\\.log(\\.\\d+)?")
  // The compressed rotations inside the pattern: they must never be read as text.
  private val compress =
    Mode("compress", Seq("create", "compress", "delaycompress"), "service\\.log.*")
  // Rotated into another directory, which the path names too.
  private val olddir =
    Mode("olddir", Seq("create", "olddir old", "createolddir"), "**/service\\.log(\\.\\d+)?")
  // Compressed at once: a file's last lines are only in its .gz, read as the lines it holds.
  private val compressAtOnce =
    Mode("compress_at_once", Seq("create", "compress"), "service\\.log.*")
  // The same with each other compressor logrotate's `compresscmd` may run, read as gzip's are.
  private val compressedOtherwise = Seq("bzip2", "xz", "zstd", "lz4").map { compressor =>
    val command = Seq(s"compresscmd /usr/bin/$compressor", s"compressext .$compressor")
    Mode(
      s"compress_with_$compressor",
      Seq("create", "compress", "compressoptions -q") ++ command,
      "service\\.log.*",
      rotations = 6)
  }

  /** Rotates `times` times, a second apart; `pause` (the writers' lock) held while it runs. */
  private def rotateTimes(rotate: Logrotate, pause: Option[ReentrantLock], times: Int): Unit =
    (1 to times).foreach { _ =>
      Thread.sleep(1000) // pacing: one forced rotation a second
      pause.foreach(_.lock())
      try rotate.rotate()
      finally pause.foreach(_.unlock())
    }

  private def pauseOf(mode: Mode, writer: AppLogWriter): Option[ReentrantLock] =
    Some(writer.lock).filter(_ => mode.pauseWriter)

  private def setUp(mode: Mode): (Path, Logrotate, AppLogWriter) = {
    val dir = newDir(mode.name)
    val log = Files.createFile(dir.resolve("service.log"))
    val writer = new AppLogWriter(log, mode.name, 5000, new ReentrantLock()).start()
    (dir, new Logrotate(log, mode.directives), writer)
  }

  private def lost(query: StreamingQuery): String =
    query.lastProgress.sources.head.metrics.get("bytesLost")

  (Seq(create, copytruncate, compress, compressAtOnce, olddir) ++ compressedOtherwise).foreach {
    mode =>
      test(
        s"logrotate ${mode.name} (${mode.directives.mkString(", ")}) every second: exactly once") {
        val (dir, rotate, writer) = setUp(mode)
        val query = spark.readStream
          .format("aof")
          .load(s"$dir/${mode.pattern}")
          .writeStream
          .format("memory")
          .queryName(s"rotated_${mode.name}")
          .option("checkpointLocation", newDir("ckpt").toString)
          .start()
        rotateTimes(rotate, pauseOf(mode, writer), mode.rotations)
        val ids = writer.stop()
        drain(query)
        val rows = spark.table(s"rotated_${mode.name}").collect().toSeq
        val bytesLost = lost(query)
        query.stop()
        assert(ids.size > mode.rotations * 1000)
        // Checked first: a loss count with every line there is a false count, not a loss.
        assertExactlyOnce(rows, ids)
        assert(bytesLost === "0")
      }
  }

  // The second log's .gz is written just after the first log's rotated file is deleted, and a
  // file system may give it that file's inode: a key the query tracks, for other content.
  test("logrotate compress_at_once of two logs in one block, every second: exactly once") {
    val dir = newDir("two_logs")
    val logs = Seq("access.log", "error.log").map(name => Files.createFile(dir.resolve(name)))
    val lock = new ReentrantLock()
    val writers = logs.map { log =>
      val name = log.getFileName.toString.stripSuffix(".log")
      new AppLogWriter(log, name, 2500, lock, openEachWrite = true).start()
    }
    val rotate = new Logrotate(logs, compressAtOnce.directives)
    val out = newDir("out")
    val query = Queries.start(spark, s"$dir/(access|error)\\.log.*", newDir("ckpt"), out)
    rotateTimes(rotate, Some(lock), compressAtOnce.rotations)
    val ids = writers.flatMap(_.stop())
    drain(query)
    assert(lost(query) === "0")
    query.stop()
    assertExactlyOnce(spark, out, ids)
  }

  Seq(create, copytruncate, compressAtOnce).foreach { mode =>
    test(s"logrotate ${mode.name}: two rotations while the query is stopped, then a restart") {
      val (dir, rotate, writer) = setUp(mode)
      val (ckpt, out) = (newDir("ckpt"), newDir("out"))
      def start() = Queries.start(spark, s"$dir/${mode.pattern}", ckpt, out)
      val first = start()
      eventually("lines read")(Option(first.lastProgress).exists(_.numInputRows > 0))
      first.stop()
      rotateTimes(rotate, pauseOf(mode, writer), 2)
      val again = start()
      rotateTimes(rotate, pauseOf(mode, writer), 1)
      val ids = writer.stop()
      drain(again)
      assert(lost(again) === "0")
      again.stop()
      assertExactlyOnce(spark, out, ids)
    }
  }
}
