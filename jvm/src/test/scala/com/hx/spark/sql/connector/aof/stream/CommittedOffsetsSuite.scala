package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.apache.spark.sql.streaming.Trigger
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.offset.OffsetSnapshots
import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/** The checkpoint's files as the Spark under test writes them, read without Spark's classes. */
class CommittedOffsetsSuite extends AnyFunSuite with SparkTestKit {

  test("each source's offset of the last committed batch; nothing before a commit") {
    val (a, b) = (newDir("a"), newDir("b"))
    Files.write(a.resolve("app.log"), "1 line\n2 line\n".getBytes(UTF_8))
    Files.write(b.resolve("app.log"), "3 line\n".getBytes(UTF_8))
    val checkpoint = newDir("checkpoint")
    def offsets(index: Int) = {
      val hadoopConf = spark.sparkContext.hadoopConfiguration
      val source = checkpoint.resolve(s"sources/$index").toString
      new CommittedOffsets(hadoopConf, source)
    }
    def whole(index: Int): String = {
      val log = offsets(index)
      val snapshots = new OffsetSnapshots(
        spark.sparkContext.hadoopConfiguration,
        checkpoint.resolve(s"sources/$index").toString,
        () => log.oldestJson())
      log.latestWholeJson(snapshots).get
    }
    def committed(index: Int): Option[String] = offsets(index).latestJson()
    assert(committed(0) === None)

    val source = spark.readStream.format("aof")
    val query = source
      .load(s"$a/app\\.log")
      .union(source.load(s"$b/app\\.log"))
      .writeStream
      .format("noop")
      .option("checkpointLocation", checkpoint.toString)
      .trigger(Trigger.AvailableNow())
      .start()
    query.awaitTermination()
    val progress = query.lastProgress.sources
    assert(committed(0) === Some(progress(0).endOffset))
    assert(committed(1) === Some(progress(1).endOffset))
    // Each on a snapshot of its own files: whole, they differ.
    assert(whole(0).contains(s"$a/app.log") && !whole(0).contains(s"$b/app.log"))
    assert(whole(1).contains(s"$b/app.log"))
    assert(offsets(0).oldestJson().nonEmpty)
    assert(committed(2) === None)
  }

  test("the last commit followed as batches commit, also after the log's old files went") {
    val checkpoint = newDir("followed")
    def write(dir: String, batch: Int, text: String): Unit = {
      Files.createDirectories(checkpoint.resolve(dir))
      Files.write(checkpoint.resolve(s"$dir/$batch"), text.getBytes(UTF_8))
    }
    // Spark's files: an offset per batch ("v1", metadata, a line per source), then its commit.
    def batch(n: Int): Unit = {
      write("offsets", n, s"""v1\n{}\n{"batch":$n}""")
      write("commits", n, "v1\n{}")
    }
    val log = new CommittedOffsets(
      spark.sparkContext.hadoopConfiguration,
      checkpoint.resolve("sources/0").toString)
    assert(log.latestJson() === None)
    (0 to 2).foreach(batch)
    assert(log.latestJson() === Some("""{"batch":2}"""))
    assert(log.latestJson() === Some("""{"batch":2}"""))
    batch(3)
    batch(4)
    assert(log.latestJson() === Some("""{"batch":4}"""))
    // Spark keeps its last batches only: those this found last may be gone.
    (0 to 4).foreach(n => Files.delete(checkpoint.resolve(s"commits/$n")))
    batch(7)
    assert(log.latestJson() === Some("""{"batch":7}"""))
  }
}
