package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import org.apache.spark.sql.streaming.Trigger
import org.scalatest.funsuite.AnyFunSuite

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

  test("bytes.max cuts batches anywhere, even mid-line, and every line is read once") {
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

  test("Trigger.Once reads everything in one batch, ignoring bytes.max") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val ids = LogWriter.append(dir.resolve("app-a.log"), (1 to 1000).map(n => s"a-$n"))
    val query = start(dir, ckpt, out, Map("bytes.max" -> "2000"), Trigger.Once())
    assert(query.awaitTermination(120000))
    assert(query.recentProgress.map(_.numInputRows).max === 1000)
    assertExactlyOnce(spark, out, ids)
  }

  test("the original connector's format name works too") {
    val dir = newDir("logs")
    val ids = LogWriter.append(dir.resolve("app-a.log"), Seq("x-1", "x-2"))
    val df = spark.readStream.format("com.hx.spark.sql.connector.aof").load(s"$dir/app-.*\\.log")
    val query =
      df.writeStream.format("memory").queryName("legacy").trigger(Trigger.AvailableNow()).start()
    assert(query.awaitTermination(120000))
    assert(spark.table("legacy").collect().map(_.getString(0).takeWhile(_ != ' ')).sorted === ids)
    assert(
      spark.table("legacy").columns.toSeq === Seq("value", "host", "path", "offset", "file_id"))
  }
}
