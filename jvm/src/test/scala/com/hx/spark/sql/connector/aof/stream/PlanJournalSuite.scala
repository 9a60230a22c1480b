package com.hx.spark.sql.connector.aof.stream

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{FileOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.testkit.{TempDirectories, ZooKeeperFixture}

/**
 * Plan journals in a real ZooKeeper server: kept and read back in order, found from the same
 * start only, fenced once the driver stops their batch, and copied through the checkpoint.
 */
class PlanJournalSuite extends AnyFunSuite with ZooKeeperFixture with TempDirectories {
  private val metaStore = "/journals"
  private lazy val driver = zkClient(metaStore)

  private def fileAt(name: String, pos: Long): FileOffset =
    FileOffset(
      s"/var/log/$name",
      FileKey(2049L, name.hashCode.toLong),
      1L,
      0L,
      pos,
      Fingerprint(0L, ""))

  private def offsets(serial: Long, files: FileOffset*): HostOffsets =
    HostOffsets(serial, files.map(f => f.fileId -> f).toMap)

  private val start = Some(offsets(2L, fileAt("a.log", 10L), fileAt("b.log", 0L)))
  private val plans = Seq(
    offsets(2L, fileAt("a.log", 40L), fileAt("b.log", 0L)),
    offsets(3L, fileAt("a.log", 40L), fileAt("b.log", 25L), fileAt("c.log", 7L)))

  private def task(host: String, from: Option[HostOffsets], version: Int): ZkPlanJournal =
    new ZkPlanJournal(zkClient(metaStore), metaStore, host, from, version)

  private def open(host: String, from: Option[HostOffsets]): Int =
    ZkPlanJournal.open(driver, ZkPlanJournal.pathOf(metaStore, host, from))

  test("a task from the same start reads the plans kept, in order; one from another does not") {
    val version = open("kept", start)
    val first = task("kept", start, version)
    assert(first.planned === Nil)
    plans.foreach(first.keep)
    assert(task("kept", start, version).planned === plans)
    assert(task("kept", Some(plans.last), version).planned === Nil)
    assert(task("kept", None, version).planned === Nil)
  }

  test("the same offsets built in another order find the same journal") {
    val reordered = start.map(o => o.copy(files = o.files.toSeq.reverse.toMap))
    assert(
      ZkPlanJournal.pathOf(metaStore, "h", reordered) === ZkPlanJournal
        .pathOf(metaStore, "h", start))
  }

  test("opening a start removes the host's journals of other starts, keeps its own") {
    task("moved", start, open("moved", start)).keep(plans.head)
    task("moved", Some(plans.head), open("moved", Some(plans.head))).keep(plans.last)
    assert(task("moved", start, 0).planned === Nil)
    assert(task("moved", Some(plans.head), open("moved", Some(plans.head))).planned.size === 1)
  }

  test("once fenced, a task of that batch keeps no plan; the next batch's task does") {
    val version = open("fenced", start)
    val stopped = task("fenced", start, version)
    stopped.keep(plans.head)
    ZkPlanJournal.fence(driver, ZkPlanJournal.pathOf(metaStore, "fenced", start))
    val e = intercept[IllegalStateException](stopped.keep(plans.last))
    assert(e.getMessage.contains("host fenced was stopped"))
    val next = task("fenced", start, open("fenced", start))
    assert(next.planned === plans.take(1))
    next.keep(plans.last)
    intercept[IllegalStateException](stopped.keep(plans.last))
    assert(task("fenced", start, 0).planned === plans)
  }

  test("a journal copied into the checkpoint comes back into an empty ZooKeeper") {
    val checkpoint = tempDirectory("aof-ckpt-").toString
    val copies = new JournalCopies(new Configuration(), checkpoint, metaStore)
    val starts = Map("copied" -> start)
    copies.restore(driver, starts)
    task("copied", start, open("copied", start)).keep(plans.head)
    copies.save(driver, starts)
    driver.delete().deletingChildrenIfNeeded().forPath(s"$metaStore/realtime/copied")
    copies.restore(driver, starts)
    assert(task("copied", start, open("copied", start)).planned === plans.take(1))
    // A later batch starts elsewhere: the earlier one was committed, its copy goes.
    copies.restore(driver, Map("copied" -> Some(plans.head)))
    driver.delete().deletingChildrenIfNeeded().forPath(s"$metaStore/realtime/copied")
    copies.restore(driver, starts)
    assert(task("copied", start, open("copied", start)).planned === Nil)
  }
}
