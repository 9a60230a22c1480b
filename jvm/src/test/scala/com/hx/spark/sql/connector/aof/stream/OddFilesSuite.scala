package com.hx.spark.sql.connector.aof.stream

import java.io.{FileOutputStream, RandomAccessFile}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.util.Random

import org.apache.spark.sql.streaming.{StreamingQuery, Trigger}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Queries, SparkTestKit}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/**
 * Files a real directory holds besides well-behaved logs: bytes without a newline (a line being
 * written, a binary file), a huge sparse file, a directory that is not there yet. None may hang a
 * query, count a loss that did not happen, or make a file read twice under a new id.
 */
class OddFilesSuite extends AnyFunSuite with SparkTestKit {

  private def start(
      dir: Path,
      ckpt: Path,
      out: Path,
      trigger: Trigger,
      options: Map[String, String] = Map.empty): StreamingQuery =
    Queries.start(spark, s"$dir/app-.*\\.log", ckpt, out, options, trigger)

  private def appendBytes(file: Path, bytes: Array[Byte]): Unit = {
    val o = new FileOutputStream(file.toFile, true)
    try o.write(bytes)
    finally o.close()
  }

  private def runAvailableNow(
      dir: Path,
      ckpt: Path,
      out: Path,
      options: Map[String, String] = Map.empty): StreamingQuery = {
    val query =
      start(dir, ckpt, out, Trigger.AvailableNow(), options ++ Map("fail.on.data.loss" -> "true"))
    assert(query.awaitTermination(120000), "AvailableNow did not stop by itself")
    assert(query.exception.isEmpty, query.exception)
    query
  }

  private def bytesLost(query: StreamingQuery): Seq[Long] =
    query.recentProgress.toSeq.flatMap(_.sources).map(_.metrics.get("bytesLost").toLong)

  private def fileIds(out: Path): Set[String] = Queries.rows(spark, out).map(_.getString(4)).toSet

  test("AvailableNow finishes beside files without a newline, and reads each once it has one") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val ids = LogWriter.append(dir.resolve("app-a.log"), (1 to 500).map(n => s"a-$n"))
    val binary = Array.fill(600 * 1024)((Random.nextInt(255) + 11).toByte).map { b =>
      if (b == '\n' || b == ' ') 0.toByte else b // NULs in it, and no newline
    }
    appendBytes(dir.resolve("app-b.log"), "abc".getBytes(UTF_8))
    appendBytes(dir.resolve("app-c.log"), s"c-1 ${"x" * 900000}".getBytes(UTF_8))
    appendBytes(dir.resolve("app-d.log"), "d-1 ".getBytes(UTF_8) ++ binary)

    val first = runAvailableNow(dir, ckpt, out)
    assert(bytesLost(first).forall(_ == 0L), bytesLost(first))
    assertExactlyOnce(spark, out, ids)

    Seq("b", "c", "d").foreach(f => appendBytes(dir.resolve(s"app-$f.log"), " end\n".getBytes))
    val second = runAvailableNow(dir, ckpt, out)
    assert(bytesLost(second).forall(_ == 0L), bytesLost(second))
    assertExactlyOnce(spark, out, ids ++ Seq("abc", "c-1", "d-1"))
    assert(fileIds(out).size === 4, "a file was taken for a new one while it had no newline")
  }

  test("a line without its newline through many triggers keeps its file id and loses nothing") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    appendBytes(dir.resolve("app-b.log"), "b-1 half".getBytes(UTF_8))
    val query = start(dir, ckpt, out, Trigger.ProcessingTime(0L))
    val ids = (1 to 5).flatMap { round =>
      val written = LogWriter.append(dir.resolve("app-a.log"), Seq(s"a-$round"))
      drain(query)
      written
    }
    appendBytes(dir.resolve("app-b.log"), " end\n".getBytes(UTF_8))
    drain(query)
    query.stop()
    assert(bytesLost(query).forall(_ == 0L), bytesLost(query))
    assertExactlyOnce(spark, out, ids :+ "b-1")
    assert(fileIds(out).size === 2)
  }

  test("a sparse file beyond 2 GiB without a newline neither hangs AvailableNow nor is lost") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val ids = LogWriter.append(dir.resolve("app-a.log"), (1 to 100).map(n => s"a-$n"))
    val huge = new RandomAccessFile(dir.resolve("app-huge.log").toFile, "rw")
    try huge.setLength(5L << 29) // 2.5 GiB of holes: no disk used, every byte a NUL
    finally huge.close()
    // Its first answer scans it all for a newline, which takes longer than the default wait.
    val query = runAvailableNow(dir, ckpt, out, Map("meta.await.timeout" -> "120000"))
    assert(bytesLost(query).forall(_ == 0L), bytesLost(query))
    assertExactlyOnce(spark, out, ids)
  }

  test("AvailableNow's reports grow old while files grow and rotate: no loss, no new id") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val log = dir.resolve("app-a.log")
    val before = LogWriter.append(log, (1 to 2000).map(n => s"a-$n"))
    val writer = new LogWriter(log, "during", 3000).start()
    val first = start(
      dir,
      ckpt,
      out,
      Trigger.AvailableNow(),
      Map("bytes.max" -> "4000", "fail.on.data.loss" -> "true"))
    eventually("a few batches")(first.recentProgress.count(_.numInputRows > 0) >= 3)
    val during = writer.join()
    Files.move(log, dir.resolve("app-a.1.log"))
    val after = LogWriter.append(log, (1 to 100).map(n => s"after-$n"))
    assert(first.awaitTermination(120000), "AvailableNow did not stop by itself")
    assert(first.exception.isEmpty, first.exception)
    val second = runAvailableNow(dir, ckpt, out)
    assert((bytesLost(first) ++ bytesLost(second)).forall(_ == 0L))
    assertExactlyOnce(spark, out, before ++ during ++ after)
    assert(fileIds(out).size === 2, "the rotated file was taken for a new one")
  }

  test("a directory that does not exist yet is watched for, and its files read whole") {
    val (parent, ckpt, out) = (newDir("parent"), newDir("ckpt"), newDir("out"))
    val dir = parent.resolve("later")
    val query =
      start(dir, ckpt, out, Trigger.ProcessingTime(0L), Map("starting.offsets" -> "latest"))
    eventually("a first trigger")(query.lastProgress != null)
    Files.createDirectories(dir)
    val ids = LogWriter.append(dir.resolve("app-a.log"), (1 to 100).map(n => s"a-$n"))
    eventually("the new directory's lines") {
      query.recentProgress.map(_.numInputRows).sum == 100
    }
    query.stop()
    assertExactlyOnce(spark, out, ids)
  }
}
