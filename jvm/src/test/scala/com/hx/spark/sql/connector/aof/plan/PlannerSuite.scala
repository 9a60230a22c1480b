package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.config.StartingOffsets.{Earliest, Latest}
import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta, Fingerprint, KnownFile}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}

class PlannerSuite extends AnyFunSuite {
  private val host = "node-1"
  private val key = FileKey(2049L, 77L)
  private val head = Fingerprint(1024L, "head")

  private def meta(
      size: Long,
      lineEnd: Long,
      print: Fingerprint = head,
      probe: Option[Fingerprint] = None) =
    FileMeta("/logs/app.log", key, size, lineEnd, print, probe)

  private def tracked(pos: Long, print: Fingerprint = head, serial: Long = 0L): AofOffset =
    AofOffset(
      Map(
        host -> HostOffsets(
          serial + 1,
          Map(FileOffset
            .fileId(key, serial) -> FileOffset("/logs/app.log", key, serial, 0L, pos, print)))))

  private val noHosts = AofOffset.Empty
  private val otherFileOnHost = AofOffset(Map(host -> HostOffsets(1L, Map.empty)))

  private def limits(
      bytesMax: Option[Long] = None,
      starting: StartingOffsets = Earliest,
      md5: Boolean = true) =
    PlanLimits(bytesMax, starting, md5)

  private case class Row(
      rule: String,
      start: AofOffset,
      report: FileMeta,
      limits: PlanLimits,
      serial: Long,
      first: Long,
      pos: Long)

  // format: off
  private val table = Seq(
    Row("!C1 & !C2, earliest: first read starts at 0", noHosts, meta(500, 400), limits(), 0, 0, 400),
    Row("!C1 & !C2, latest: first read starts at the last complete line", noHosts, meta(500, 400), limits(starting = Latest), 0, 400, 400),
    Row("!C1 & C2: a file created since is read from 0, even with latest", otherFileOnHost, meta(500, 400), limits(starting = Latest), 1, 0, 400),
    Row("C1 & C3 & C4: normal, up to the last complete line", tracked(100), meta(500, 400), limits(), 0, 0, 400),
    Row("normal, bytes.max caps the batch (may cut a line)", tracked(100), meta(500, 400), limits(bytesMax = Some(150)), 0, 0, 250),
    Row("bytes.max larger than what is there", tracked(100), meta(500, 400), limits(bytesMax = Some(Long.MaxValue)), 0, 0, 400),
    Row("nothing new: the position stays", tracked(400), meta(450, 400), limits(), 0, 0, 400),
    Row("C1 & !C3: replaced, a new serial read from 0", tracked(300), meta(500, 200, Fingerprint(1024, "other")), limits(), 1, 0, 200),
    Row("C1 & !C3 with bytes.max", tracked(300), meta(500, 200, Fingerprint(1024, "other")), limits(bytesMax = Some(50)), 1, 0, 50),
    Row("C1 & !C3 ignored when md5 checks are off", tracked(300), meta(500, 450, Fingerprint(1024, "other")), limits(md5 = false), 0, 0, 450),
    Row("truncated below its fingerprint: replaced", tracked(300, head), meta(10, 10, Fingerprint(10, "x")), limits(), 1, 0, 10),
    Row("C1 & C3 & !C4: same head but shorter, continue at its length", tracked(3000), meta(2000, 1900), limits(), 0, 0, 2000),
    Row("short file grown past its fingerprint: the probe agrees", tracked(10, Fingerprint(10, "ten")), meta(500, 400, head, Some(Fingerprint(10, "ten"))), limits(), 0, 0, 400),
    Row("short file grown but its head changed", tracked(10, Fingerprint(10, "ten")), meta(500, 400, head, Some(Fingerprint(10, "new"))), limits(), 1, 0, 400)
  )
  // format: on

  table.foreach { row =>
    test(s"rule: ${row.rule}") {
      val end = Planner.plan(row.start, Map(host -> Seq(row.report)), row.limits)
      val files = end.hosts(host).files.values.toSeq
      assert(files.map(f => (f.serial, f.first, f.pos)) === Seq((row.serial, row.first, row.pos)))
      assert(files.head.fingerprint === row.report.fingerprint)
      assert(
        end.hosts(host).nextSerial === math
          .max(row.serial + 1, row.start.hosts.get(host).fold(0L)(_.nextSerial)))
    }
  }

  test("a renamed file keeps its id and offset under its new name") {
    val end = Planner.plan(
      tracked(100),
      Map(host -> Seq(meta(500, 400).copy(path = "/logs/app.log.1"))),
      limits())
    val file = end.hosts(host).files(FileOffset.fileId(key, 0))
    assert((file.path, file.pos) === (("/logs/app.log.1", 400L)))
  }

  test("a file no longer reported is forgotten") {
    assert(Planner.plan(tracked(100), Map(host -> Seq.empty), limits()).hosts(host).files.isEmpty)
  }

  test("a host that did not answer keeps its offsets") {
    val start = tracked(100)
    assert(
      Planner.plan(start, Map("node-2" -> Seq.empty), limits()).hosts(host) === start.hosts(host))
  }

  test("an inode reused by a new file gets a new id, never an old one") {
    val afterDelete = Planner.plan(tracked(100, serial = 4), Map(host -> Seq.empty), limits())
    val end =
      Planner.plan(afterDelete, Map(host -> Seq(meta(50, 50, Fingerprint(50, "new")))), limits())
    assert(end.hosts(host).files.keySet === Set(FileOffset.fileId(key, 5)))
  }

  test("known files carry the floor and the fingerprint last seen") {
    assert(Planner.known(tracked(100), host) === Seq(KnownFile(key, 100, head)))
    assert(Planner.known(tracked(100), "node-2").isEmpty)
  }

  test("planning is a pure function of its inputs") {
    val reports = Map(host -> Seq(meta(500, 400)))
    assert(
      Planner.plan(tracked(100), reports, limits()) === Planner
        .plan(tracked(100), reports, limits()))
  }
}
