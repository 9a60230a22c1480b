package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileKey, FileMeta, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.protocol.Delta

/**
 * A host's plan skips its settled files while its answer changes in place. That the plans are
 * the plans made in full is held by the models, which plan through a memo and in full at every
 * trigger; here, which files a memo lets a plan skip.
 */
class PlanMemoSuite extends AnyFunSuite {
  private val host = "node-1"
  private val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(true))

  private def meta(i: Int, size: Long) =
    FileMeta(
      s"/logs/app-$i.log",
      FileKey(1L, i.toLong),
      size,
      size,
      Fingerprint(50L, s"head-$i"),
      None)

  private def applied(files: Seq[FileMeta], changed: Seq[FileMeta], gone: Seq[FileKey] = Nil) =
    Delta.applied(files, Delta(changed, gone))(_.key)

  /** 1,000 files read to their end, then planned again as they are: settled. */
  private def settled(memos: PlanMemos): (Seq[FileMeta], AofOffset) = {
    val files = (0 until 1000).map(meta(_, 100L))
    val read = Planner.plan(AofOffset.Empty, Map(host -> files), limits, memos = memos).end
    (files, Planner.plan(read, Map(host -> files), limits, memos = memos).end)
  }

  private def news(memos: PlanMemos, now: Seq[FileMeta], start: AofOffset) =
    memos.of(host).flatMap { case (memo, most) => memo.news(now, start.hosts.get(host), most) }

  test("a file written among settled ones is the only one planned again, until it settles") {
    val memos = new PlanMemos
    val (files, start) = settled(memos)
    val now = applied(files, Seq(meta(500, 200L)))
    val n = news(memos, now, start).get
    assert(n.changedFiles.map(_.path) == Seq("/logs/app-500.log"))
    assert(n.gone.isEmpty && n.kept.cardinality == 999)
    val end = Planner.plan(start, Map(host -> now), limits, memos = memos).end
    assert(end.file(host, s"1:500:500").map(_.pos).contains(200L))
    // Read on, it is settled by the next plan, which finds it as it left it.
    assert(news(memos, now, end).get.changedFiles.map(_.path) == Seq("/logs/app-500.log"))
    val again = Planner.plan(end, Map(host -> now), limits, memos = memos).end
    assert(again.hosts(host) eq end.hosts(host), "planned again, nothing changes")
    assert(news(memos, now, again).get.changed.isEmpty)
  }

  test("a file gone and one new: the new one is planned, the gone one's key is given") {
    val memos = new PlanMemos
    val (files, start) = settled(memos)
    val now = applied(files, Seq(meta(1000, 50L)), Seq(FileKey(1L, 3L)))
    val n = news(memos, now, start).get
    assert(n.changedFiles.map(_.path) == Seq("/logs/app-1000.log"))
    assert(n.gone == Set(FileKey(1L, 3L)))
    val end = Planner.plan(start, Map(host -> now), limits, memos = memos).end
    assert(end == Planner.plan(start, Map(host -> now), limits).end)
    assert(end.file(host, "1:3:3").isEmpty && end.file(host, "1:1000:1000").nonEmpty)
  }

  test("an answer in another order, one from other offsets, or one mostly changed: in full") {
    val memos = new PlanMemos
    val (files, start) = settled(memos)
    assert(news(memos, files.reverse, start).isEmpty)
    assert(news(memos, files, AofOffset(Map(host -> start.hosts(host).copy()))).isEmpty)
    assert(
      news(memos, files.take(500) ++ files.drop(500).map(m => m.copy(size = 101L)), start).isEmpty)
    assert(news(memos, files, start).nonEmpty)
  }

  test("a file not read to its line end is never settled: it is planned until it is") {
    val memos = new PlanMemos
    val limited = limits.copy(bytesMax = Some(10L))
    val files = Seq(meta(0, 100L).copy(cuts = 10L until 100L by 10), meta(1, 100L).copy(cuts = Nil))
    val first = Planner.plan(AofOffset.Empty, Map(host -> files), limited, memos = memos).end
    val second = Planner.plan(first, Map(host -> files), limited, memos = memos).end
    // The second: one read on 10 bytes, the other (one line) read whole by the first.
    assert(second.file(host, "1:0:0").map(_.pos).contains(20L))
    val n = memos.of(host).get._1.news(files, second.hosts.get(host), 1).get
    assert(n.changedFiles.map(_.path) == Seq("/logs/app-0.log"))
  }
}
