package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.util.concurrent.locks.ReentrantLock

import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{
  AppLogWriter, LogWriter, Logged, Logrotate, Queries, Spark4Only, SparkTestKit
}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/**
 * The real logrotate, forced twenty times (six for each compressor but gzip), each after 2,500
 * more lines, against writers appending 5,000 lines a second: every line exactly once, nothing
 * counted lost. Counted, not timed: a loaded machine rotates as often, only more slowly; a
 * rotation comes about every half second, and a batch at the default trigger takes a tenth, so
 * rotations fall between batches and amid them.
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

  /**
   * Rotates `times` times, each once the writers wrote [[LinesPerRotation]] more lines; `pause`
   * (the writers' lock) held while it runs.
   */
  private def rotateTimes(
      rotate: Logrotate,
      pause: Option[ReentrantLock],
      times: Int,
      written: () => Int): Unit =
    (1 to times).foreach { _ =>
      val before = written()
      eventually(s"$LinesPerRotation lines written")(written() >= before + LinesPerRotation)
      pause.foreach(_.lock())
      try rotate.rotate()
      finally pause.foreach(_.unlock())
    }

  private val LinesPerRotation = 2500

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
      val directives = mode.directives.mkString(", ")
      test(s"logrotate ${mode.name} ($directives), every 2,500 lines: exactly once") {
        val (dir, rotate, writer) = setUp(mode)
        val query = spark.readStream
          .format("aof")
          .load(s"$dir/${mode.pattern}")
          .writeStream
          .format("memory")
          .queryName(s"rotated_${mode.name}")
          .option("checkpointLocation", newDir("ckpt").toString)
          .start()
        rotateTimes(rotate, pauseOf(mode, writer), mode.rotations, () => writer.written)
        val ids = writer.stop()
        drain(query)
        val rows = spark.table(s"rotated_${mode.name}").collect().toSeq
        val bytesLost = lost(query)
        query.stop()
        assert(ids.size >= mode.rotations * LinesPerRotation)
        // Checked first: a loss count with every line there is a false count, not a loss.
        assertExactlyOnce(rows, ids)
        assert(bytesLost === "0")
      }
  }

  // The second log's .gz is written just after the first log's rotated file is deleted, and a
  // file system may give it that file's inode: a key the query tracks, for other content. Its two
  // writers' lines count together, so it rotates about every quarter second.
  test("logrotate compress_at_once of two logs in one block, every 2,500 lines: exactly once") {
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
    rotateTimes(rotate, Some(lock), compressAtOnce.rotations, () => writers.map(_.written).sum)
    val ids = writers.flatMap(_.stop())
    drain(query)
    assert(lost(query) === "0")
    query.stop()
    assertExactlyOnce(spark, out, ids)
  }

  /**
   * `mode`'s writer and rotations, `whileStopped` of them with the query on `pattern` stopped after
   * its first lines, then `after` more once it started again: the directory, the query's output,
   * the ids written and the second run's `bytesLost`.
   */
  private def restarted(
      mode: Mode,
      pattern: String,
      whileStopped: Int,
      after: Int): (Path, Path, Seq[String], String) = {
    val (dir, rotate, writer) = setUp(mode)
    val (ckpt, out) = (newDir("ckpt"), newDir("out"))
    def start() = Queries.start(spark, s"$dir/$pattern", ckpt, out)
    val first = start()
    eventually("lines read")(Option(first.lastProgress).exists(_.numInputRows > 0))
    first.stop()
    rotateTimes(rotate, pauseOf(mode, writer), whileStopped, () => writer.written)
    val again = start()
    rotateTimes(rotate, pauseOf(mode, writer), after, () => writer.written)
    val ids = writer.stop()
    drain(again)
    val bytesLost = lost(again)
    again.stop()
    (dir, out, ids, bytesLost)
  }

  Seq(create, copytruncate, compressAtOnce).foreach { mode =>
    test(s"logrotate ${mode.name}: two rotations while the query is stopped, then a restart") {
      val (_, out, ids, bytesLost) = restarted(mode, mode.pattern, whileStopped = 2, after = 1)
      assert(bytesLost === "0")
      assertExactlyOnce(spark, out, ids)
    }
  }

  // Its copies named service.log.1, .2, ...: a path of the live file alone does not read them.
  private val liveOnly = "service\\.log"

  /** The ids in the copies, each with the bytes of its line. */
  private def copied(dir: Path): Map[String, Long] =
    Files
      .list(dir)
      .toArray
      .toSeq
      .map(_.asInstanceOf[Path])
      .filter(_.getFileName.toString.matches("service\\.log\\.[0-9]+"))
      .flatMap(f => new String(Files.readAllBytes(f), UTF_8).split("\n").toSeq)
      .map(line => line.takeWhile(_ != ' ') -> (line.getBytes(UTF_8).length + 1L))
      .toMap

  test(
    "logrotate copytruncate, a path of the live file only: what only a copy holds is said lost") {
    // Rotated once while stopped: what was written since its last batch is in the copy alone.
    val ((dir, out, ids, bytesLost), warned) =
      Logged.during(classOf[AofMicroBatchStream].getName) { logged =>
        val run = restarted(copytruncate, liveOnly, whileStopped = 1, after = 2)
        (run, logged().filter(_.contains("went before they were read")))
      }
    val read = Queries.rows(spark, out).map(_.getString(0).takeWhile(_ != ' '))
    assert(read.distinct.size === read.size, "a line read twice")
    val unread = ids.filterNot(read.toSet)
    val inCopies = copied(dir)
    // The writer pauses while logrotate runs: no line is in no file.
    assert(unread.nonEmpty && unread.forall(inCopies.contains))
    assert(bytesLost.toLong === unread.map(inCopies).sum)
    val advice = s"one that does: '$dir/service\\.log(\\.[0-9]+)?'"
    assert(warned.nonEmpty)
    warned.foreach(w => assert(w.contains(s"its copy $dir/service.log.") && w.contains(advice), w))
  }

  test("logrotate copytruncate, a path of the live file only, fail.on.data.loss: the query fails") {
    val dir = newDir("fails")
    val log = dir.resolve("service.log")
    val (ckpt, out) = (newDir("ckpt"), newDir("out"))
    def start() =
      Queries.start(spark, s"$dir/$liveOnly", ckpt, out, Map("fail.on.data.loss" -> "true"))
    LogWriter.append(log, (1 to 100).map(n => s"a-$n"))
    val first = start()
    drain(first)
    first.stop()
    LogWriter.append(log, (1 to 100).map(n => s"b-$n"))
    new Logrotate(log, copytruncate.directives).rotate()
    LogWriter.append(log, (1 to 100).map(n => s"c-$n"))
    val e = intercept[StreamingQueryException](start().awaitTermination(60000))
    val message =
      Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString
    assert(message.contains(s"its copy $dir/service.log.1"), message)
    assert(message.contains("fail.on.data.loss=false"), message)
  }
}
