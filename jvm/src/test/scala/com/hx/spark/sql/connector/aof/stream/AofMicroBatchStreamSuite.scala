package com.hx.spark.sql.connector.aof.stream

import java.nio.file.Paths
import java.time.{Clock, Instant, ZoneId, ZoneOffset}
import java.util.Optional

import org.apache.spark.sql.connector.read.streaming.{Offset, ReadLimit}
import org.apache.spark.sql.execution.streaming.SerializedOffset
import org.scalatest.LoneElement
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.driver.QueryRun
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, Fingerprint}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets, OffsetSnapshots}
import com.hx.spark.sql.connector.aof.plan.{CopiesLookedFor, News}
import com.hx.spark.sql.connector.aof.testkit.{Logged, SparkTestKit}
import com.hx.spark.sql.connector.aof.zookeeper.ZkAccess

/**
 * The stream on a real Spark session, with its run served from memory: what it does with what
 * the hosts report, without ZooKeeper or endpoints.
 */
class AofMicroBatchStreamSuite extends AnyFunSuite with SparkTestKit with LoneElement {
  private val host = "node-1"
  private val key = FileKey(2049L, 77L)
  private val head = Fingerprint(1024L, "head")

  private def report(size: Long, lineEnd: Long, print: Fingerprint = head) =
    FileMeta("/logs/app.log", key, size, lineEnd, print, None)

  /** A run whose hosts report `files`, and which records what the stream asked of it. */
  private final class MemoryRun(var files: Map[String, Seq[FileMeta]], backup: Option[String])
      extends QueryRun {
    var backUps = 0
    var frozen = false
    var stopped = false
    var looked = Map.empty[String, CopiesLookedFor]
    override def backedUp(): Option[String] = backup
    // What a look finds, when it differs from the news (a write the news did not carry yet).
    var afterLook = Option.empty[Map[String, Seq[FileMeta]]]
    var looks = 0
    override def news(start: AofOffset, look: Boolean): News = {
      if (look) looks += 1
      News(if (look) afterLook.getOrElse(files) else files, looked)
    }
    override def freezeAtNextTrigger(): Unit = frozen = true
    override def backUpSoon(): Unit = backUps += 1
    override def lastNews: News = News(files, looked)
    override def hostsWithoutEndpoint: Set[String] = Set("node-2")
    override def hostsByNode(hosts: Iterable[String]): Map[String, Seq[String]] =
      hosts.map(h => h -> Seq(h)).toMap
    override def zookeeperAddress: Option[String] = Some("127.0.0.1:1")
    override def endpoint: EndpointSpec =
      EndpointSpec(
        "r",
        ZkAccess("127.0.0.1:1", 1000),
        "/m",
        SourceFiles(Paths.get("/logs"), ".*"),
        1,
        "k")
    override def stop(): Unit = stopped = true
  }

  private def stream(
      files: Map[String, Seq[FileMeta]],
      options: Map[String, String] = Map.empty,
      backup: Option[String] = None,
      checkpoint: String = newDir("checkpoint").toString,
      oldestOffset: () => Option[String] = () => None,
      clock: Clock = Clock.systemUTC()): (AofMicroBatchStream, MemoryRun) = {
    val run = new MemoryRun(files, backup)
    val parsed = AofOptions.parse(Map("path" -> "/logs/app.*") ++ options, Map.empty)
    val hadoopConf = spark.sparkContext.hadoopConfiguration
    val snapshots = new OffsetSnapshots(hadoopConf, checkpoint, oldestOffset)
    (new AofMicroBatchStream(spark, parsed, run, snapshots, clock), run)
  }

  private def offset(o: Offset): AofOffset = o.asInstanceOf[AofOffset]

  private def position(offset: AofOffset): Long =
    offset.hosts(host).files.values.toSeq.loneElement.pos

  test("a trigger plans up to the last complete line; partitions come from the offsets alone") {
    val (s, run) = stream(Map(host -> Seq(report(500, 400))))
    val start = s.initialOffset()
    val end = offset(s.latestOffset(start, ReadLimit.allAvailable()))
    assert(position(end) === 400)

    run.files = Map(host -> Seq(report(900, 800)))
    val ranges = s.planInputPartitions(start, end).toSeq.flatMap { case p: AofInputPartition =>
      p.ranges
    }
    assert(
      ranges.map(r => (r.host, r.path, r.from, r.until)) === Seq((host, "/logs/app.log", 0, 400)))
  }

  test("a trigger whose news plans nothing new has every host look, and plans what it finds") {
    val (s, run) = stream(Map(host -> Seq(report(500, 400))))
    val end = offset(s.latestOffset(s.initialOffset(), ReadLimit.allAvailable()))
    assert(run.looks === 0)
    // No news; the look finds a line written before the trigger.
    run.files = Map.empty
    run.afterLook = Some(Map(host -> Seq(report(600, 600))))
    val next = offset(s.latestOffset(end, ReadLimit.allAvailable()))
    assert(run.looks === 1)
    assert(position(next) === 600)
    // Nothing anywhere: looked, and the same offset, so Spark runs no batch.
    run.afterLook = None
    assert(s.latestOffset(next, ReadLimit.allAvailable()) === next)
    assert(run.looks === 2)
  }

  test("a batch's lines carry the time it was planned, kept in its offset for a replay") {
    val planned = 1795780378000L
    var now = planned
    val clock = new Clock {
      override def millis(): Long = now
      override def instant(): Instant = Instant.ofEpochMilli(now)
      override def getZone: ZoneId = ZoneOffset.UTC
      override def withZone(zone: ZoneId): Clock = this
    }
    val (s, run) = stream(Map(host -> Seq(report(500, 400))), clock = clock)
    val start = s.initialOffset()
    val end = offset(s.latestOffset(start, ReadLimit.allAvailable()))
    assert(end.plannedAtMs === Some(planned))
    now += 60000
    // Nothing new: the same offset, so Spark plans no batch, and its time stays.
    assert(s.latestOffset(end, ReadLimit.allAvailable()) === end)
    // A replay, after a restart that parses the offset back, gives the lines the same time.
    val replayed = offset(s.deserializeOffset(end.json()))
    val times = s.planInputPartitions(start, replayed).toSeq.map { case p: AofInputPartition =>
      p.plannedAtMs
    }
    assert(times === Seq(planned))
    run.files = Map(host -> Seq(report(900, 800)))
    val next = offset(s.latestOffset(end, ReadLimit.allAvailable()))
    assert(next.plannedAtMs === Some(planned + 60000))
  }

  test("a new checkpoint starts from the backup only when told to; else it warns of it, once") {
    val tracked = AofOffset(
      Map(host -> HostOffsets(1, Map("x" -> FileOffset("/logs/app.log", key, 0, 0, 120, head)))))
    val resume = Map("resume.from.backup" -> "true")
    assert(
      offset(stream(Map.empty, resume, backup = Some(tracked.json()))._1.initialOffset())
        === tracked)
    assert(offset(stream(Map.empty, resume)._1.initialOffset()) === AofOffset.Empty)
    val said = Logged.during(classOf[AofMicroBatchStream].getName) { seen =>
      assert(
        offset(stream(Map.empty, backup = Some(tracked.json()))._1.initialOffset())
          === AofOffset.Empty)
      assert(offset(stream(Map.empty)._1.initialOffset()) === AofOffset.Empty)
      seen()
    }
    assert(said.size === 1)
    assert(said.head.contains("not from the offset backup in /aof/logs"))
    assert(said.head.contains("set resume.from.backup=true"))
  }

  test("bytes.max limits a trigger, and a read limit in rows is refused, naming it") {
    val lines = report(500, 400).copy(cuts = Seq(100, 200, 300))
    val (s, _) = stream(Map(host -> Seq(lines)), Map("bytes.max" -> "100"))
    val start = s.initialOffset()
    assert(position(offset(s.latestOffset(start, s.getDefaultReadLimit))) === 100)
    val e = intercept[IllegalArgumentException](s.latestOffset(start, ReadLimit.maxRows(10)))
    assert(e.getMessage.contains("unsupported read limit"))
  }

  // Read up to 100 of the 180 bytes it had when last planned.
  private val partlyRead = {
    val tracked = FileOffset("/logs/app.log", key, 0, 0, 100, head, None, 180)
    AofOffset(Map(host -> HostOffsets(1, Map(tracked.fileId -> tracked))))
  }

  /** The offset once the file is deleted, and the host's next answer finds no copy of it. */
  private def deleted(s: AofMicroBatchStream, run: MemoryRun): Offset = {
    val retired = s.latestOffset(partlyRead, ReadLimit.allAvailable())
    assert(s.metrics(Optional.empty()).get("bytesLost") === "0", "a copy of it may show up")
    run.looked = Map(host -> CopiesLookedFor("answer-2", partlyRead.hosts(host).files.keySet))
    s.latestOffset(retired, ReadLimit.allAvailable())
  }

  test("the metrics say where the query's znodes are, for `pyspark-aof status`") {
    val (s, _) = stream(Map(host -> Nil), Map("meta.store" -> "/aof/app"))
    val metrics = s.metrics(Optional.empty())
    assert(metrics.get("zookeeperAddress") === "127.0.0.1:1")
    assert(metrics.get("metaStore") === "/aof/app")
  }

  test("bytes deleted before they were read are counted in bytesLost") {
    val (s, run) = stream(Map(host -> Nil))
    deleted(s, run)
    assert(s.metrics(Optional.empty()).get("bytesLost") === "80")
  }

  test("with fail.on.data.loss they fail the trigger, naming the option") {
    val (s, run) = stream(Map(host -> Nil), Map("fail.on.data.loss" -> "true"))
    val e = intercept[IllegalStateException](deleted(s, run))
    assert(e.getMessage.contains("fail.on.data.loss=false"))
  }

  test("AvailableNow, commits, triggers and the stop reach the run") {
    val (s, run) = stream(Map(host -> Seq(report(500, 400))))
    s.prepareForTriggerAvailableNow()
    assert(run.frozen)
    val end = s.latestOffset(s.initialOffset(), ReadLimit.allAvailable())
    s.commit(end)
    assert(run.backUps === 2, "a backup at each trigger and each commit")
    s.stop()
    assert(run.stopped)
  }

  test("offsets Spark reads back from a checkpoint (SerializedOffset) are understood") {
    // After a restart, Spark 3.5 passes the last consumed offset to metrics() as it read it.
    val (s, _) = stream(Map.empty)
    val json = """{"version":1,"hosts":{"h":{"nextSerial":1,"files":{}}}}"""
    val metrics = s.metrics(Optional.of(SerializedOffset(json)))
    assert(metrics.get("filesTracked") === "0")
    assert(metrics.get("hostsWithoutEndpoint") === "1")
  }

  test("idle files weigh nothing on a batch's offset; a restart reads the offsets back whole") {
    val checkpoint = newDir("checkpoint")
    def files(grown: Int => Long) = Map(host -> (0 until 1000).map { i =>
      FileMeta(s"/logs/app-$i.log", FileKey(2049L, i.toLong), grown(i), grown(i), head, None)
    })
    // As Spark's offset log with spark.sql.streaming.minBatchesToRetain=1: the last commit.
    var committed = Option.empty[String]
    var logRead = 0
    val oldest = () => {
      logRead += 1
      committed
    }
    val (s, run) = stream(files(_ => 400), checkpoint = checkpoint.toString, oldestOffset = oldest)
    var end = offset(s.latestOffset(s.initialOffset(), ReadLimit.allAvailable()))
    for (trigger <- 1 to 30) {
      if (trigger == 2) assert(logRead === 0, "one snapshot: none to delete, the log not read")
      // Ten files grow at each trigger, a different ten each time.
      run.files = files(i => if (i / 10 <= trigger) 400L + 10 * (i / 10) else 400L)
      val next = offset(s.latestOffset(end, ReadLimit.allAvailable()))
      assert(next.json().length <= 40 * 1000, s"trigger $trigger: ${next.json().length} bytes")
      committed = Some(end.json())
      s.commit(end)
      end = next
    }
    val snapshots = checkpoint.resolve("snapshots").toFile.list().toSeq
    assert(snapshots.size <= 2, s"snapshots of offsets Spark no longer keeps: $snapshots")

    val (restarted, _) = stream(Map.empty, checkpoint = checkpoint.toString)
    val read = offset(restarted.deserializeOffset(end.json()))
    assert(read.hosts === end.hosts)
    assert(read.hosts(host).files.size === 1000)
  }

  test("a snapshot the checkpoint's offsets are on, gone, is named with the way out") {
    val checkpoint = newDir("checkpoint")
    val files = Map(host -> (0 until OffsetSnapshots.LeastFiles.toInt).map { i =>
      FileMeta(s"/logs/app-$i.log", FileKey(2049L, i.toLong), 400, 400, head, None)
    })
    val (s, _) = stream(files, checkpoint = checkpoint.toString)
    val end = s.latestOffset(s.initialOffset(), ReadLimit.allAvailable()).json()
    checkpoint.resolve("snapshots").toFile.listFiles().foreach(_.delete())
    val (restarted, _) = stream(Map.empty, checkpoint = checkpoint.toString)
    val e = intercept[IllegalStateException](restarted.deserializeOffset(end))
    assert(e.getMessage.contains("snapshots/000000000000.json.gz"))
    assert(e.getMessage.contains("new checkpoint"))
  }
}
