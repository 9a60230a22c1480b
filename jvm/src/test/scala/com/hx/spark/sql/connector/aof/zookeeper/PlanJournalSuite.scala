package com.hx.spark.sql.connector.aof.zookeeper

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.offset.HostOffsets
import com.hx.spark.sql.connector.aof.protocol.{
  JournalPlans, JournalPlansSuite, MessageSeal, ZkPaths
}
import com.hx.spark.sql.connector.aof.testkit.{
  Logged, Spark4Only, TempDirectories, ZooKeeperFixture
}

/**
 * Plan journals in a real ZooKeeper server: kept and read back, carried over to a batch that
 * starts inside them, fenced once the driver stops their batch, and copied through the
 * checkpoint.
 */
@Spark4Only
class PlanJournalSuite extends AnyFunSuite with ZooKeeperFixture with TempDirectories {
  import JournalPlansSuite.{at, offsets}

  private val metaStore = "/journals"
  private lazy val driver = zkClient(metaStore)

  private val start = Some(offsets(2L, at("a", 10L), at("b", 0L)))
  private val plans = Seq(
    offsets(2L, at("a", 40L), at("b", 0L)),
    offsets(3L, at("a", 40L), at("b", 25L), at("c", 7L)))

  private val key = MessageSeal.newKey()

  private def task(host: String, from: Option[HostOffsets], version: Int): ZkPlanJournal =
    new ZkPlanJournal(zkClient(metaStore), metaStore, host, from, version, key)

  private def opened(host: String, from: Option[HostOffsets]): ZkPlanJournal =
    task(host, from, ZkPlanJournal.open(driver, metaStore, host))

  test("a batch run again reads the plans kept; a later one from past them reads none") {
    val first = opened("kept", start)
    assert(first.planned === Nil)
    plans.foreach(first.keep)
    assert(opened("kept", start).planned === Seq(plans.last)) // one segment: nothing dropped
    assert(opened("kept", Some(plans.last)).planned === Seq(plans.last))
    assert(
      opened("kept", Some(offsets(3L, at("a", 41L), at("b", 25L), at("c", 7L)))).planned === Nil)
    assert(opened("kept", None).planned === Nil)
  }

  test("a batch that starts where an earlier one ended, inside its plans, reads the rest first") {
    opened("carried", start).keep(plans.last)
    val inside = Some(offsets(3L, at("a", 40L), at("b", 12L), at("c", 0L)))
    assert(opened("carried", inside).planned === Seq(plans.last))
    assert(opened("carried", inside).planned === Seq(plans.last), "its own now: run again")
  }

  test("once fenced, a task of that batch keeps no plan; the next batch's task does") {
    val stopped = opened("fenced", start)
    stopped.keep(plans.head)
    ZkPlanJournal.fence(driver, ZkPaths.journal(metaStore, "fenced"))
    val e = intercept[IllegalStateException](stopped.keep(plans.last))
    assert(e.getMessage.contains("host fenced was stopped"))
    val next = opened("fenced", start)
    assert(next.planned === plans.take(1))
    next.keep(plans.last)
    intercept[IllegalStateException](stopped.keep(plans.last))
    assert(opened("fenced", start).planned === Seq(plans.last))
  }

  /** The versions of a journal's start and plans: how many times each was written. */
  private def writes(host: String): (Int, Int) = {
    val path = ZkPaths.journal(metaStore, host)
    (
      driver.checkExists().forPath(s"$path/start").getVersion,
      driver.checkExists().forPath(s"$path/plans").getVersion)
  }

  test("a journal is written at a batch's start only by a task whose start moved") {
    opened("idle", start).keep(plans.head)
    val kept = writes("idle")
    val next = ZkPlanJournal.open(driver, metaStore, "idle")
    assert(writes("idle") === kept, "the driver gave the journal a version, and wrote nothing")
    // The host read nothing in that batch: the next one starts where it did.
    assert(task("idle", start, next).planned === plans.take(1))
    assert(writes("idle") === kept, "the task reads the plans kept from its start")
    // A driver started again knows nothing of the journals: each task reads its own.
    val restarted = zkClient(metaStore)
    val again = task("idle", start, ZkPlanJournal.open(restarted, metaStore, "idle"))
    assert(again.planned === plans.take(1))
    again.keep(plans.last)
    assert(writes("idle") === ((kept._1, kept._2 + 1)))
    val moved = task("idle", Some(plans.last), ZkPlanJournal.open(restarted, metaStore, "idle"))
    assert(moved.planned === Seq(plans.last), "what the batch before left past its start")
    assert(writes("idle") === ((kept._1 + 1, kept._2 + 2)), "its start and plans, together")
    assert(task("idle", Some(plans.last), next + 2).planned === Seq(plans.last), "run again")
    assert(writes("idle") === ((kept._1 + 1, kept._2 + 2)))
  }

  test("a task of a batch fenced before it opened its journal writes nothing") {
    opened("late", start).keep(plans.head)
    val stale = ZkPlanJournal.open(driver, metaStore, "late")
    ZkPlanJournal.open(driver, metaStore, "late") // the next batch's, or the query stopped
    val before = ZkPlanJournal.texts(driver, ZkPaths.journal(metaStore, "late"))
    // It starts inside the plans kept: opening the journal for it means writing it.
    val inside = Some(offsets(2L, at("a", 20L), at("b", 0L)))
    val e = intercept[IllegalStateException](task("late", inside, stale))
    assert(e.getMessage.contains("host late was stopped"))
    assert(ZkPlanJournal.texts(driver, ZkPaths.journal(metaStore, "late")) === before)
  }

  test("a journal copied into the checkpoint comes back into an empty ZooKeeper") {
    val checkpoint = tempDirectory("aof-ckpt-").toString
    val copies = new JournalCopies(new Configuration(), checkpoint, metaStore)
    copies.restore(driver, Seq("copied"))
    opened("copied", start).keep(plans.head)
    copies.save(driver, Seq("copied"))
    driver.delete().deletingChildrenIfNeeded().forPath(s"$metaStore/realtime/copied")
    copies.restore(driver, Seq("copied"))
    assert(opened("copied", start).planned === plans.take(1))
  }

  test("a journal not sealed by the query is ignored and said: its task plans anew") {
    val secret = offsets(3L, at("a", 40L), at("b", 25L), at("c", 7L), at("passwd", 4096L))
    val forged = Seq(
      "forged" -> JournalPlans.write("forged", start, plans :+ secret),
      "other key" -> MessageSeal.sealText(
        JournalPlans.write("forged", start, plans :+ secret),
        MessageSeal.newKey(),
        "journal plans forged"),
      // Another host's plans, sealed by this query: a seal says whose it is.
      "another host's" -> MessageSeal.sealText(
        JournalPlans.write("forged", start, plans),
        key,
        "journal plans kept")
    )
    Logged.during(classOf[ZkPlanJournal].getPackage.getName) { said =>
      forged.foreach { case (what, text) =>
        opened("forged", start).keep(plans.head)
        driver.setData().forPath(s"$metaStore/realtime/forged/plans", text.getBytes("UTF-8"))
        assert(opened("forged", start).planned === Nil, what)
        // The journal is the query's again, and holds only what its task kept.
        val next = opened("forged", start)
        next.keep(plans.last)
        assert(opened("forged", start).planned === Seq(plans.last), what)
      }
      // A forged start: the journal's plans are not carried over from it.
      opened("forged", start).keep(plans.last)
      driver.setData().forPath(s"$metaStore/realtime/forged/start", "new host".getBytes("UTF-8"))
      val inside = Some(offsets(3L, at("a", 40L), at("b", 12L), at("c", 0L)))
      assert(opened("forged", inside).planned === Nil)
      assert(said().exists(m => m.contains("/realtime/forged/plans") && m.contains("not sealed")))
      assert(said().exists(_.contains("/realtime/forged/start")), said())
    }
  }
}
