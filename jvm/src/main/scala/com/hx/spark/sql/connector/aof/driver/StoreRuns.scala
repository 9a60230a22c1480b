package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{KeeperException, ZKUtil}
import org.apache.zookeeper.data.Stat
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.ZkPaths

/**
 * The runs on one meta store besides `runId`, as its driver sees them: those whose driver died
 * are removed, and a live one of another query refuses this run.
 *
 * A run is live only while a session holds its driver znode, which a driver makes ephemeral. A
 * persistent one outlives every session (anyone who may write the store can make one): taken for
 * a live run, it would refuse every query on the store for good.
 */
private[driver] final class StoreRuns(client: CuratorFramework, metaStore: String, runId: String) {
  private val log = LoggerFactory.getLogger(getClass)

  /**
   * Another query's live run, if any. A run of the same checkpoint is the query itself,
   * restarted before ZooKeeper ended its crashed run.
   */
  def otherQuery(checkpoint: String): Option[StoreRuns.Live] =
    others().flatMap(live).find(_.checkpoint != checkpoint)

  /**
   * Removes the runs of earlier drivers that died without cleaning up (their driver znode is
   * gone), and those whose driver znode no session holds.
   */
  def removeFinished(): Unit =
    others().foreach { run =>
      val other = ZkPaths(metaStore, run)
      val stat = client.checkExists().forPath(other.driver)
      if (stat == null) {
        log.info(s"aof: removing the znodes of finished run $run")
        try if (!removed(other.run)) log.debug(s"aof: run $run not removed yet")
        catch { case e: KeeperException => log.debug(s"aof: run $run not removed yet: $e") }
      } else if (stat.getEphemeralOwner == 0) {
        removeUnheld(other)
      }
    }

  /**
   * Deletes a run's znodes in one multi-op, where deleting a znode at a time waits for each; false
   * when one changed meanwhile (a stand-by endpoint still closing, say).
   */
  def removed(run: String): Boolean =
    try ZKUtil.deleteRecursive(client.getZookeeperClient.getZooKeeper, run, 1000)
    catch { case _: KeeperException.NoNodeException => false }

  /**
   * Removes `run` within `timeoutMs`, trying again while a stand-by endpoint closes its latch
   * (the driver's stop: what is left is removed by the next driver on the store).
   */
  def removeWithin(run: String, timeoutMs: Long): Unit = {
    val deadline = System.nanoTime() + timeoutMs * 1000000L
    while (System.nanoTime() < deadline && client.checkExists().forPath(run) != null) {
      if (!removed(run)) Thread.sleep(StoreRuns.RemovePollMs)
    }
  }

  /**
   * The run, if a session holds its driver znode. One that none holds is not: [[removeFinished]]
   * removes it, or says why it stays.
   */
  private def live(run: String): Option[StoreRuns.Live] = {
    val paths = ZkPaths(metaStore, run)
    val stat = new Stat
    try {
      val checkpoint = new String(client.getData.storingStatIn(stat).forPath(paths.driver), UTF_8)
      Some(StoreRuns.Live(paths.run, checkpoint)).filter(_ => stat.getEphemeralOwner != 0)
    } catch { case _: KeeperException.NoNodeException => None }
  }

  /** Removes a run whose driver znode is persistent, or says why it stays: it is no live run. */
  private def removeUnheld(run: ZkPaths): Unit = {
    val why = s"aof: ${run.driver} is persistent, where a driver's is ephemeral: not a live run"
    val kept = s"ignored: ${run.run} could not be removed"
    val outcome =
      try if (removed(run.run)) s"removed ${run.run}" else s"$kept (its ACL, or a change meanwhile)"
      catch { case e: KeeperException => s"$kept: $e" }
    log.warn(s"$why; $outcome")
  }

  private def others(): Seq[String] =
    try client.getChildren.forPath(ZkPaths(metaStore, runId).runs).asScala.filter(_ != runId).toSeq
    catch { case _: KeeperException.NoNodeException => Nil }
}

private[driver] object StoreRuns {

  /**
   * A run a session holds: `run` its znode, `checkpoint` its query's (empty when it keeps none).
   */
  final case class Live(run: String, checkpoint: String) {

    /** Why a run on `metaStore` is refused while this one lives, and what to do. */
    def refusal(metaStore: String): String = {
      val which = if (checkpoint.isEmpty) "" else s" (checkpoint $checkpoint)"
      // A session that lives on without a driver (a client that made the znode by hand) holds
      // it for good: what to remove then, under the chroot of zookeeper.address if it has one.
      s"aof: another query$which is running with meta.store '$metaStore'. Two running queries " +
        "on one meta.store would share its offset backup: give this one its own, " +
        s""".option("meta.store", "$metaStore-2") for example. If that query's driver died, """ +
        "its run ends within zookeeper.session.timeout. If it does not, and no query runs " +
        s"there, remove its znodes: zkCli.sh -server <zookeeper.address> deleteall $run"
    }
  }

  /** How often a stop tries again to remove the run's znodes, while an endpoint holds one. */
  private val RemovePollMs = 50L
}
