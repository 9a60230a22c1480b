package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException, Trigger}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.offset.{AofOffset, OffsetJson, OffsetSnapshots}
import com.hx.spark.sql.connector.aof.plan.Ranges
import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Queries, SparkTestKit}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/** Local mode with the embedded ZooKeeper: the default a newcomer gets. */
class StreamEndToEndSuite extends AnyFunSuite with SparkTestKit {

  private def start(
      dir: Path,
      ckpt: Path,
      out: Path,
      options: Map[String, String] = Map.empty,
      trigger: Trigger = Trigger.ProcessingTime(0L)) =
    Queries.start(spark, s"$dir/app-.*\\.log", ckpt, out, options, trigger)

  test("every complete line exactly once: concurrent writers, half lines, a new file, a restart") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val early = Seq("a", "b").map(w => new LogWriter(dir.resolve(s"app-$w.log"), w, 3000).start())
    val query = start(dir, ckpt, out)
    eventually("a first batch")(query.lastProgress != null)
    val late = new LogWriter(dir.resolve("app-c.log"), "c", 2000).start()
    val ids = (early :+ late).flatMap(_.join())
    drain(query)
    query.stop()
    assertExactlyOnce(spark, out, ids)

    val more = LogWriter.append(dir.resolve("app-a.log"), (1 to 500).map(n => s"d-$n"))
    val restarted = start(dir, ckpt, out)
    drain(restarted)
    restarted.stop()
    assertExactlyOnce(spark, out, ids ++ more)
  }

  private def snapshotsIn(ckpt: Path): Seq[String] =
    Option(ckpt.resolve("sources/0/snapshots").toFile.list()).toSeq.flatten
      .filterNot(_.startsWith("."))

  test("a query of few files writes its offsets whole, and no snapshot") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val query = start(dir, ckpt, out)
    val ids = (1 to 5).flatMap { batch =>
      val written = LogWriter.append(dir.resolve("app-a.log"), Seq(s"line-$batch"))
      drain(query)
      written
    }
    query.stop()
    assert(snapshotsIn(ckpt).isEmpty)
    assert(!query.lastProgress.sources.head.endOffset.contains("snapshot"))
    assertExactlyOnce(spark, out, ids)
  }

  test("the checkpoint keeps the offsets' snapshots of the batches Spark keeps, no more") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    // Files enough for offsets on snapshots, made once the query runs (read from their start).
    val files = (0L until OffsetSnapshots.LeastFiles).map(i => dir.resolve(s"app-$i.log"))
    spark.conf.set("spark.sql.streaming.minBatchesToRetain", "2")
    try {
      val query = start(dir, ckpt, out)
      eventually("a first batch")(query.lastProgress != null)
      val ids = (0 to 12).flatMap { batch =>
        val written = (if (batch == 0) files else files.take(11))
          .flatMap(f => LogWriter.append(f, Seq(s"line-$batch-${f.getFileName}")))
        drain(query)
        written
      }
      query.stop()
      val snapshots = snapshotsIn(ckpt)
      // More than a tenth of the files change at each batch, so each batch's offset is on a
      // snapshot of its own; Spark keeps 2 batches and the one it runs, and learns of a commit at
      // the next batch.
      assert(snapshots.nonEmpty && snapshots.size <= 4, snapshots)
      assertExactlyOnce(spark, out, ids)

      val more = LogWriter.append(dir.resolve("app-a.log"), Seq("after-restart"))
      val restarted = start(dir, ckpt, out)
      drain(restarted)
      restarted.stop()
      assertExactlyOnce(spark, out, ids ++ more)
    } finally spark.conf.unset("spark.sql.streaming.minBatchesToRetain")
  }

  test("a file renamed to a name the pattern misses is drained under its new name") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val before = LogWriter.append(dir.resolve("app-a.log"), (1 to 200).map(n => s"before-$n"))
    val query = start(dir, ckpt, out)
    drain(query)
    Files.move(dir.resolve("app-a.log"), dir.resolve("rotated.1"))
    // The writer still holds the renamed file; what it writes there is read too.
    val after = LogWriter.append(dir.resolve("rotated.1"), (1 to 100).map(n => s"after-$n"))
    drain(query)
    query.stop()
    assertExactlyOnce(spark, out, before ++ after)
    assert(
      Queries.rows(spark, out).map(_.getString(2)).toSet ===
        Set(dir.resolve("app-a.log").toString, dir.resolve("rotated.1").toString))
  }

  test("files sharing their first line (a header) are each read whole") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val header = Seq("header")
    val a = LogWriter.append(dir.resolve("app-a.log"), header)
    val query = start(dir, ckpt, out)
    drain(query)
    val later = LogWriter.append(dir.resolve("app-b.log"), header ++ Seq("b-1", "b-2")) ++
      LogWriter.append(dir.resolve("app-a.log"), Seq("a-1"))
    drain(query)
    query.stop()
    val values = Queries.rows(spark, out).map(_.getString(0))
    assert(values.sorted.toSeq === (a ++ later).map(_ + " line").sorted)
  }

  test("a line longer than line.length.max is cut, counted, and the next line is whole") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    Files.write(dir.resolve("app-a.log"), ("x" * 5000 + "\nshort line\n").getBytes(UTF_8))
    val query = start(dir, ckpt, out, Map("line.length.max" -> "100"))
    drain(query)
    val truncated = query.lastProgress.sources.head.metrics.get("linesTruncated")
    query.stop()
    val values = Queries.rows(spark, out).map(r => (r.getLong(3), r.getString(0))).sortBy(_._1)
    assert(values.toSeq === Seq((0L, "x" * 100), (5001L, "short line")))
    assert(truncated === "1")
  }

  test("bytes deleted before they were read are counted, or fail the query when asked") {
    def deleteUnread(failOnLoss: Boolean): StreamingQuery = {
      val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
      LogWriter.append(dir.resolve("app-a.log"), (1 to 100).map(n => s"a-$n"))
      LogWriter.append(dir.resolve("app-b.log"), Seq("b-1"))
      val options = Map("bytes.max" -> "100", "fail.on.data.loss" -> failOnLoss.toString)
      val query = start(dir, ckpt, out, options)
      eventually("a first batch")(Option(query.lastProgress).exists(_.numInputRows > 0))
      Files.delete(dir.resolve("app-a.log"))
      LogWriter.append(dir.resolve("app-b.log"), Seq("b-2"))
      query
    }
    val counting = deleteUnread(failOnLoss = false)
    eventually("loss counted") {
      counting.lastProgress.sources.head.metrics.get("bytesLost").toLong > 0
    }
    counting.stop()
    val failing = deleteUnread(failOnLoss = true)
    val e = intercept[StreamingQueryException](failing.awaitTermination(60000))
    // Planning or a task reading the file may be the one to notice: look through the causes.
    val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage)
    val message = messages.mkString(" / ")
    assert(message.contains("fail.on.data.loss"), message)
    assert(message.contains("app-a.log"), message)
  }

  test("bytes.max ends batches at line starts: a file deleted next loses only unread lines") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val file = dir.resolve("app-a.log")
    // Lines of 100 bytes: a batch of at most 250 holds two. One that ended inside the third
    // would read it whole, and the rest of it would be counted lost with the file.
    LogWriter.append(file, (1 to 10).map(n => f"a-$n%03d" + "x" * 89))
    val options = Map("bytes.max" -> "250")
    val once = start(dir, ckpt, out, options, Trigger.ProcessingTime("1 hour"))
    eventually("a first batch")(Option(once.lastProgress).exists(_.numInputRows > 0))
    once.stop()
    assert(Queries.rows(spark, out).size === 2)
    Files.delete(file)
    val again = start(dir, ckpt, out, options)
    def lost = Option(again.lastProgress).map(_.sources.head.metrics.get("bytesLost"))
    eventually("the loss counted")(lost.exists(_ != "0"))
    again.stop()
    assert(lost === Some("800"))
  }

  test("bytes.max ends batches early, and every line is read once") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val ids = new LogWriter(dir.resolve("app-a.log"), "a", 800).start().join()
    val query = start(dir, ckpt, out, Map("bytes.max" -> "777", "partition.bytes.max" -> "100"))
    drain(query)
    query.stop()
    assert(query.recentProgress.count(_.numInputRows > 0) > 1)
    assertExactlyOnce(spark, out, ids)
  }

  test("starting.offsets=latest skips what existed; files created later are read whole") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    LogWriter.append(dir.resolve("app-a.log"), (1 to 300).map(n => s"old-$n"))
    val query = start(dir, ckpt, out, Map("starting.offsets" -> "latest"))
    eventually("a first batch")(query.lastProgress != null)
    val fresh = LogWriter.append(dir.resolve("app-a.log"), (1 to 200).map(n => s"new-$n")) ++
      LogWriter.append(dir.resolve("app-b.log"), (1 to 100).map(n => s"newfile-$n"))
    drain(query)
    // A half-written line is behind and stays unread; a whole line after it makes a batch run.
    Files.write(dir.resolve("app-b.log"), "partial".getBytes(UTF_8), StandardOpenOption.APPEND)
    val last = LogWriter.append(dir.resolve("app-a.log"), Seq("last"))
    eventually("a batch whose metrics count the half line") {
      val progress = query.lastProgress
      progress.sources.head.metrics.get("bytesBehindLatest") == "7"
    }
    val metrics = query.lastProgress.sources.head.metrics
    assert(metrics.get("filesTracked") === "2")
    assert(metrics.get("hostsWithoutEndpoint") === "0")
    query.stop()
    assertExactlyOnce(spark, out, fresh ++ last)
  }

  test("Trigger.AvailableNow reads what exists in bytes.max batches, then stops") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val ids = LogWriter.append(dir.resolve("app-a.log"), (1 to 1000).map(n => s"a-$n"))
    val query = start(dir, ckpt, out, Map("bytes.max" -> "2000"), Trigger.AvailableNow())
    assert(query.awaitTermination(120000), "AvailableNow did not stop by itself")
    assert(query.recentProgress.count(_.numInputRows > 0) > 1)
    assertExactlyOnce(spark, out, ids)
  }

  test("Trigger.AvailableNow shares batch.bytes.max fairly: a quiet file is read at once") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val quiet = LogWriter.append(dir.resolve("app-q.log"), (1 to 10).map(n => s"q-$n"))
    val busy = LogWriter.append(dir.resolve("app-b.log"), (1 to 1000).map(n => f"b-$n%04d"))
    val query = start(dir, ckpt, out, Map("batch.bytes.max" -> "1000"), Trigger.AvailableNow())
    assert(query.awaitTermination(120000), "AvailableNow did not stop by itself")
    val batches = query.recentProgress.filter(_.numInputRows > 0)
    assert(batches.length >= 7, "7 KB of lines in batches of 1,000 bytes")
    // Spark's offset log keeps its last 100 batches, and with them their offsets' snapshots.
    val snapshots = new OffsetSnapshots(
      spark.sparkContext.hadoopConfiguration,
      ckpt.resolve("sources/0").toString,
      () => None)
    def offset(json: String) =
      Option(json).fold(AofOffset.Empty)(OffsetJson.read(_, snapshots.read))
    val planned = batches.map { b =>
      val source = b.sources.head
      Ranges
        .between(offset(source.startOffset), offset(source.endOffset))
        .map(r => r.until - r.from)
        .sum
    }
    assert(planned.max <= 1000, planned.toSeq)
    val first = offset(batches.head.sources.head.endOffset).hosts.values.head
    val quietSize = Files.size(dir.resolve("app-q.log"))
    assert(first.files.values.exists(f => f.path.endsWith("app-q.log") && f.pos == quietSize))
    assertExactlyOnce(spark, out, quiet ++ busy)
  }

  test("Trigger.Once reads everything in one batch, ignoring bytes.max") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val ids = LogWriter.append(dir.resolve("app-a.log"), (1 to 1000).map(n => s"a-$n"))
    val query = start(dir, ckpt, out, Map("bytes.max" -> "2000"), Trigger.Once())
    assert(query.awaitTermination(120000))
    assert(query.recentProgress.map(_.numInputRows).max === 1000)
    assertExactlyOnce(spark, out, ids)
  }

  test("many small files are read by a few tasks, each line once") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val ids = (1 to 300).flatMap { n =>
      LogWriter.append(dir.resolve(f"app-$n%03d.log"), (1 to 3).map(i => s"f$n-$i"))
    }
    val query = start(dir, ckpt, out)
    drain(query)
    query.stop()
    assertExactlyOnce(spark, out, ids)
    // One Parquet file per task that read lines; Spark's 4 MB open cost packs about 30 per task.
    val written = Files.list(out).filter(_.getFileName.toString.endsWith(".parquet")).count()
    assert(written <= 20, s"$written tasks for 300 files")
  }

  test("the original connector's format name works too") {
    val dir = newDir("logs")
    val ids = LogWriter.append(dir.resolve("app-a.log"), Seq("x-1", "x-2"))
    val df = spark.readStream.format("com.hx.spark.sql.connector.aof").load(s"$dir/app-.*\\.log")
    val query =
      df.writeStream.format("memory").queryName("legacy").trigger(Trigger.AvailableNow()).start()
    assert(query.awaitTermination(120000))
    assert(spark.table("legacy").collect().map(_.getString(0).takeWhile(_ != ' ')).sorted === ids)
    val columns = Seq("value", "host", "path", "offset", "file_id", "timestamp")
    assert(spark.table("legacy").columns.toSeq === columns)
  }
}
