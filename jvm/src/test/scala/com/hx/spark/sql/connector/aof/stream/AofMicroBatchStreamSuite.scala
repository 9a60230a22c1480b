package com.hx.spark.sql.connector.aof.stream

import java.util.Optional

import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.apache.spark.sql.execution.streaming.SerializedOffset
import org.scalatest.LoneElement
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.driver.QueryRun
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.testkit.SparkTestKit
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
    override def backedUp(): Option[String] = backup
    override def reports(start: AofOffset): Map[String, Seq[FileMeta]] = files
    override def freezeAtNextTrigger(): Unit = frozen = true
    override def backUpSoon(): Unit = backUps += 1
    override def lastReports: Map[String, Seq[FileMeta]] = files
    override def hostsWithoutEndpoint: Set[String] = Set("node-2")
    override def hostsByNode(hosts: Iterable[String]): Map[String, Seq[String]] =
      hosts.map(h => h -> Seq(h)).toMap
    override def endpoint: EndpointSpec =
      EndpointSpec("r", ZkAccess("127.0.0.1:1", 1000, None), "/m", "/logs", ".*", 1, "k")
    override def stop(): Unit = stopped = true
  }

  private def stream(
      files: Map[String, Seq[FileMeta]],
      options: Map[String, String] = Map.empty,
      backup: Option[String] = None): (AofMicroBatchStream, MemoryRun) = {
    val run = new MemoryRun(files, backup)
    val parsed = AofOptions.parse(Map("path" -> "/logs/app.*") ++ options, Map.empty)
    (new AofMicroBatchStream(spark, parsed, run), run)
  }

  private def position(offset: AofOffset): Long =
    offset.hosts(host).files.values.toSeq.loneElement.pos

  test("a trigger plans up to the last complete line; partitions come from the offsets alone") {
    val (s, run) = stream(Map(host -> Seq(report(500, 400))))
    val start = s.initialOffset()
    val end = AofOffset.of(s.latestOffset(start, ReadLimit.allAvailable()))
    assert(position(end) === 400)

    run.files = Map(host -> Seq(report(900, 800)))
    val ranges = s.planInputPartitions(start, end).toSeq.flatMap { case p: AofInputPartition =>
      p.ranges
    }
    assert(
      ranges.map(r => (r.host, r.path, r.from, r.until)) === Seq((host, "/logs/app.log", 0, 400)))
  }

  test("a new checkpoint starts from the run's backup when there is one, else from nothing") {
    val tracked = AofOffset(
      Map(host -> HostOffsets(1, Map("x" -> FileOffset("/logs/app.log", key, 0, 0, 120, head)))))
    assert(
      AofOffset.of(stream(Map.empty, backup = Some(tracked.json()))._1.initialOffset())
        === tracked)
    assert(AofOffset.of(stream(Map.empty)._1.initialOffset()) === AofOffset.Empty)
  }

  test("bytes.max limits a trigger, and a read limit in rows is refused, naming it") {
    val (s, _) = stream(Map(host -> Seq(report(500, 400))), Map("bytes.max" -> "100"))
    val start = s.initialOffset()
    assert(position(AofOffset.of(s.latestOffset(start, s.getDefaultReadLimit))) === 100)
    val e = intercept[IllegalArgumentException](s.latestOffset(start, ReadLimit.maxRows(10)))
    assert(e.getMessage.contains("unsupported read limit"))
  }

  // Read up to 100 of the 180 bytes it had when last planned.
  private val partlyRead = {
    val tracked = FileOffset("/logs/app.log", key, 0, 0, 100, head, None, 180)
    AofOffset(Map(host -> HostOffsets(1, Map(tracked.fileId -> tracked))))
  }

  test("bytes deleted before they were read are counted in bytesLost") {
    val (s, _) = stream(Map(host -> Nil))
    s.latestOffset(partlyRead, ReadLimit.allAvailable())
    assert(s.metrics(Optional.empty()).get("bytesLost") === "80")
  }

  test("with fail.on.data.loss they fail the trigger, naming the option") {
    val (s, _) = stream(Map(host -> Nil), Map("fail.on.data.loss" -> "true"))
    val e =
      intercept[IllegalStateException](s.latestOffset(partlyRead, ReadLimit.allAvailable()))
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
}
