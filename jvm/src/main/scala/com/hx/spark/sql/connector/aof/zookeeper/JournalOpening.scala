package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{KeeperException, Op}

import com.hx.spark.sql.connector.aof.offset.HostOffsets
import com.hx.spark.sql.connector.aof.protocol.{JournalPlans, ZnodeValues}

/**
 * A host's journal opened by its own task for the batch's start, under the version the driver
 * gave the journal for that batch ([[ZkPlanJournal.openAll]]). When the plans stored were kept
 * from this start (the same batch again, or a host that read nothing since), the task reads them
 * and writes nothing. Else it carries over what the batch they were kept for left to read past
 * this start ([[JournalPlans.carried]]), and writes the start and those plans in one transaction
 * that checks the version: a task of a batch fenced since writes nothing, and no reader sees
 * plans beside a start they were not kept for. So the offsets of a thousand hosts are read and
 * written by their thousand tasks, each its own, not all by the driver at each batch's start.
 */
private[zookeeper] object JournalOpening {
  private val Start = "start"
  private val Plans = "plans"

  /** The plans the task reads first, once its journal stands for `text`'s start. */
  def apply(
      client: CuratorFramework,
      path: String,
      start: Option[HostOffsets],
      text: JournalPlans.Text,
      version: Int,
      seal: JournalSeal): Seq[HostOffsets] = {
    val (startPath, plansPath) = (s"$path/$Start", s"$path/$Plans")
    val stored = Pipelined(Seq(startPath, plansPath))((p, done) =>
      client.getData.inBackground(done).forPath(p)).map { case (p, reply) =>
      p -> reply.map(r => ZnodeValues.resolve(client, p, r.getData).map(new String(_, UTF_8)))
    }
    // Absent and present apart (a znode to make, or not); a value not sealed is none.
    val opened = stored.map { case (p, value) =>
      p -> value.map(_.flatMap(if (p == startPath) seal.openStart else seal.openPlans))
    }
    opened(plansPath).flatten match {
      case Some(plans) if text.names(plans) => text.read(plans)
      case plans =>
        val from = opened(startPath).flatten.map(ZkPlanJournal.startOf)
        val segments = (for (p <- plans; f <- from) yield JournalPlans.read(p, seal.host, f))
          .fold(Seq.empty[HostOffsets])(JournalPlans.carried(start, _))
        val written = seal.plans(text.write(segments)).getBytes(UTF_8)
        val startText = seal.start(ZkPlanJournal.startText(seal.host, start)).getBytes(UTF_8)
        // The transaction is one request, under ZooKeeper's limit: a large value goes in parts.
        val staged = Map(startPath -> startText, plansPath -> written).map { case (p, data) =>
          p -> ZnodeValues.stage(client, p, data, ZnodeValues.PartBytes / 2)
        }
        Seq(startPath, plansPath)
          .filter(p => stored(p).isEmpty && staged(p).parts == 0)
          .foreach { p =>
            // Empty, which is no value: the transaction gives it one.
            try client.create().forPath(p, Array.emptyByteArray)
            catch { case _: KeeperException.NodeExistsException => () }
          }
        val results = ZkPlanJournal.transaction(
          client,
          Seq(
            Op.check(path, version),
            Op.setData(startPath, staged(startPath).head, -1),
            Op.setData(plansPath, staged(plansPath).head, -1)))
        Seq(startPath, plansPath).zip(results.drop(1)).foreach { case (p, result) =>
          ZnodeValues.settle(client, p, staged(p), ZkPlanJournal.childrenAfter(result))
        }
        segments
    }
  }
}
