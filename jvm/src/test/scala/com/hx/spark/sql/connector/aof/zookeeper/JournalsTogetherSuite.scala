package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.JavaConverters._

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.offset.HostOffsets
import com.hx.spark.sql.connector.aof.protocol.{JournalPlansSuite, ZkPaths, ZnodeValues}
import com.hx.spark.sql.connector.aof.testkit.{Spark4Only, TempDirectories, ZooKeeperFixture}

/**
 * The journals of a batch's hosts opened, fenced and copied all at once, in a real ZooKeeper
 * server: host by host, what doing it for each host alone does, whatever state each journal is
 * in; and the tasks of an earlier batch fenced as before.
 */
@Spark4Only
class JournalsTogetherSuite extends AnyFunSuite with ZooKeeperFixture with TempDirectories {
  import JournalPlansSuite.{at, offsets}

  private lazy val driver = zkClient("/together")

  private val start = Some(offsets(2L, at("a", 10L), at("b", 0L)))
  private val plans = Seq(
    offsets(2L, at("a", 40L), at("b", 0L)),
    offsets(3L, at("a", 40L), at("b", 25L), at("c", 7L)))
  private val inside = Some(offsets(3L, at("a", 40L), at("b", 12L), at("c", 0L)))
  private val past = Some(offsets(3L, at("a", 41L), at("b", 25L), at("c", 7L)))
  // Its start's text is larger than a znode: it goes in parts.
  private val large = Some(offsets(1L, (0 until 10000).map(i => at(s"many-$i", i.toLong)): _*))
  private val largePlan =
    offsets(2L, (0 until 10000).map(i => at(s"many-$i", if (i == 0) 5L else i.toLong)): _*)
  // A new host's first plan over as many files: what changed since its start is all of it.
  private val largeFirstPlan =
    offsets(1L, (0 until 10000).map(i => at(s"many-$i", i.toLong)): _*)

  private def task(store: String, host: String, from: Option[HostOffsets], version: Int) =
    new ZkPlanJournal(driver, store, host, from, version, JournalsTogetherSuite.Key)

  private def openAlone(store: String, host: String, from: Option[HostOffsets]) =
    task(store, host, from, ZkPlanJournal.open(driver, store, host))

  /** What its task reads first, the journal as stored then, its values' parts and its version. */
  private case class Seen(
      planned: Seq[HostOffsets],
      texts: Option[(String, String)],
      startParts: Int,
      plansParts: Int,
      version: Int)

  private def seen(store: String, host: String, from: Option[HostOffsets], version: Int) = {
    val path = ZkPaths.journal(store, host)
    Seen(
      task(store, host, from, version).planned,
      ZkPlanJournal.texts(driver, path),
      driver.getChildren.forPath(s"$path/start").size,
      driver.getChildren.forPath(s"$path/plans").size,
      driver.checkExists().forPath(path).getVersion
    )
  }

  /** A case: how the journal was left, the start the batch opens it for, what its task reads. */
  private case class Case(
      name: String,
      before: (String, String) => Unit,
      from: Option[HostOffsets],
      planned: Seq[HostOffsets])

  private val cases = Seq(
    Case("a host new to ZooKeeper", (_, _) => (), start, Nil),
    Case("a host new to the query", (_, _) => (), None, Nil),
    Case(
      "the same batch again",
      (s, h) => plans.foreach(openAlone(s, h, start).keep),
      start,
      Seq(plans.last)),
    Case(
      "an earlier batch ended inside the journal",
      (s, h) => openAlone(s, h, start).keep(plans.last),
      inside,
      Seq(plans.last)),
    Case("a start past the journal", (s, h) => openAlone(s, h, start).keep(plans.last), past, Nil),
    Case(
      "a journal fenced when its query stopped",
      (s, h) => {
        openAlone(s, h, start).keep(plans.head)
        ZkPlanJournal.fence(driver, ZkPaths.journal(s, h))
      },
      start,
      plans.take(1)
    ),
    Case(
      "a start without plans",
      (s, h) =>
        ZnodeValues.put(driver, s"${ZkPaths.journal(s, h)}/start", "new host".getBytes(UTF_8)),
      None,
      Nil),
    Case(
      "a start in parts",
      (s, h) => openAlone(s, h, large).keep(largePlan),
      large,
      Seq(largePlan)),
    Case(
      "a start in parts replaced by one in a piece",
      (s, h) => openAlone(s, h, large).keep(largePlan),
      start,
      Nil),
    Case(
      "a first plan in parts",
      (s, h) => openAlone(s, h, None).keep(largeFirstPlan),
      None,
      Seq(largeFirstPlan)),
    Case(
      "a first plan in parts replaced by one in a piece",
      (s, h) => openAlone(s, h, None).keep(largeFirstPlan),
      start,
      Nil)
  )

  test("opened together, each host's journal is as opened alone, whatever its state") {
    val hosts = cases.zipWithIndex.flatMap { case (c, i) =>
      (0 until 3).map(j => s"host-$i:$j.example" -> c)
    }
    hosts.foreach { case (host, c) => Seq("/alone", "/together").foreach(c.before(_, host)) }
    val alone = hosts.map { case (h, _) => h -> ZkPlanJournal.open(driver, "/alone", h) }
    val together = ZkPlanJournal.openAll(driver, "/together", hosts.map(_._1))
    assert(together.keySet === hosts.map(_._1).toSet)
    hosts.zip(alone).foreach { case ((host, c), (_, version)) =>
      val actual = seen("/together", host, c.from, together(host))
      assert(actual.planned === c.planned, s"${c.name}: what its task reads first")
      assert(actual === seen("/alone", host, c.from, version), s"${c.name}: as opened alone")
      assert(actual.version === together(host), c.name)
    }
    val parts = hosts.collect {
      case (h, c) if c.name.contains("in parts") =>
        c.from -> seen("/together", h, c.from, together(h)).startParts
    }
    assert(parts.collect { case (from, n) if from == large => n }.min > 0, "the case has parts")
    assert(parts.collect { case (from, n) if from == start => n }.max === 0, "their parts gone")
    val planParts = hosts.collect {
      case (h, c) if c.name.contains("plan in parts") =>
        c.from -> seen("/together", h, c.from, together(h)).plansParts
    }
    assert(planParts.collect { case (None, n) => n }.min > 0, "the case has parts")
    assert(planParts.collect { case (Some(_), n) => n }.max === 0, "their parts gone")
  }

  test("a task of an earlier batch keeps no plan once the next batch's journals are open") {
    val hosts = (0 until 20).map(i => s"fenced-$i")
    val first = ZkPlanJournal.openAll(driver, "/next", hosts)
    val earlier = hosts.map(h => task("/next", h, start, first(h)))
    earlier.foreach(_.keep(plans.head))
    val second = ZkPlanJournal.openAll(driver, "/next", hosts)
    earlier.foreach { t =>
      val e = intercept[IllegalStateException](t.keep(plans.last))
      assert(e.getMessage.contains("was stopped"))
    }
    val next = hosts.map(h => task("/next", h, start, second(h)))
    assert(next.map(_.planned).distinct === Seq(plans.take(1)))
    next.foreach(_.keep(plans.last))
    ZkPlanJournal.fenceAll(driver, hosts.map(ZkPaths.journal("/next", _)))
    next.foreach(t => intercept[IllegalStateException](t.keep(plans.last)))
    val third = ZkPlanJournal.openAll(driver, "/next", hosts)
    hosts.foreach(h => assert(task("/next", h, start, third(h)).planned === Seq(plans.last), h))
  }

  test("a journal whose plans are larger than a znode comes back whole from its copy") {
    val store = "/large-copies"
    val copies = new JournalCopies(new Configuration(), tempDirectory("aof-ckpt-").toString, store)
    val host = "large-copied:1"
    copies.restore(driver, Seq(host))
    openAlone(store, host, None).keep(largeFirstPlan)
    copies.save(driver, Seq(host))
    driver.delete().deletingChildrenIfNeeded().forPath(ZkPaths.journal(store, host))
    copies.restore(driver, Seq(host))
    val reopened = ZkPlanJournal.openAll(driver, store, Seq(host))
    assert(task(store, host, None, reopened(host)).planned === Seq(largeFirstPlan))
  }

  test("copies of many journals go into the checkpoint and back, fenced first") {
    val store = "/copies"
    val copies = new JournalCopies(new Configuration(), tempDirectory("aof-ckpt-").toString, store)
    val hosts = (0 until 30).map(i => s"copied-$i:1")
    val withJournal = hosts.take(20)
    copies.restore(driver, hosts)
    assert(ZkPlanJournal.existing(driver, hosts.map(ZkPaths.journal(store, _))).isEmpty)
    val running = withJournal.map(h => h -> openAlone(store, h, start)).toMap
    running.values.foreach(_.keep(plans.head))
    copies.save(driver, hosts)
    running.values.foreach(t => intercept[IllegalStateException](t.keep(plans.last)))
    val kept = withJournal.head
    withJournal.tail.foreach { h =>
      driver.delete().deletingChildrenIfNeeded().forPath(ZkPaths.journal(store, h))
    }
    openAlone(store, kept, start).keep(plans.last) // ZooKeeper's is newer than the copy
    copies.restore(driver, hosts)
    assert(
      ZkPlanJournal.existing(driver, hosts.map(ZkPaths.journal(store, _))) ===
        withJournal.map(ZkPaths.journal(store, _)).toSet)
    val reopened = ZkPlanJournal.openAll(driver, store, withJournal)
    withJournal.foreach { h =>
      val expected = if (h == kept) Seq(plans.last) else plans.take(1)
      assert(task(store, h, start, reopened(h)).planned === expected, h)
    }
    assert(driver.getChildren.forPath(s"$store/realtime").asScala.size === withJournal.size)
  }

  test("a batch's journals opened together, those ZooKeeper lacks put back from the copies first") {
    val store = "/back"
    val copies = new JournalCopies(new Configuration(), tempDirectory("aof-ckpt-").toString, store)
    val hosts = (0 until 10).map(i => s"back-$i")
    val first = copies.open(driver, hosts)
    hosts.foreach(h => task(store, h, start, first(h)).keep(plans.head))
    copies.save(driver, hosts)
    hosts.take(5).foreach { h =>
      driver.delete().deletingChildrenIfNeeded().forPath(ZkPaths.journal(store, h))
    }
    val next = copies.open(driver, hosts :+ "new-host")
    hosts.foreach(h => assert(task(store, h, start, next(h)).planned === plans.take(1), h))
    assert(task(store, "new-host", None, next("new-host")).planned === Nil)
    assert(next.values.forall(_ > 0), "a version above a new znode's")
  }
}

object JournalsTogetherSuite {
  private val Key = com.hx.spark.sql.connector.aof.protocol.MessageSeal.newKey()
}
