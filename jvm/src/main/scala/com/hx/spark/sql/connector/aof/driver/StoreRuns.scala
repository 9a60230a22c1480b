package com.hx.spark.sql.connector.aof.driver

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{KeeperException, ZKUtil}
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.ZkPaths

/**
 * The runs on one meta store besides `runId`, as its driver sees them: those whose driver died
 * are removed, and a live one of another query refuses this run.
 */
private[driver] final class StoreRuns(client: CuratorFramework, metaStore: String, runId: String) {
  private val log = LoggerFactory.getLogger(getClass)

  /**
   * The checkpoint of another query's live run, if any (empty when that run keeps none). A run of
   * the same checkpoint is the query itself, restarted before ZooKeeper ended its crashed run.
   */
  def otherQuery(checkpoint: String): Option[String] =
    others()
      .flatMap { run =>
        try Some(new String(client.getData.forPath(ZkPaths(metaStore, run).driver), UTF_8))
        catch { case _: KeeperException.NoNodeException => None }
      }
      .find(_ != checkpoint)

  /** Runs of earlier drivers that died without cleaning up: their driver node is gone. */
  def removeFinished(): Unit =
    others().foreach { run =>
      val other = ZkPaths(metaStore, run)
      if (client.checkExists().forPath(other.driver) == null) {
        log.info(s"aof: removing the znodes of finished run $run")
        try if (!removed(other.run)) log.debug(s"aof: run $run not removed yet")
        catch { case e: KeeperException => log.debug(s"aof: run $run not removed yet: $e") }
      }
    }

  /**
   * Deletes a run's znodes in one multi-op, where deleting a znode at a time waits for each; false
   * when one changed meanwhile (a stand-by endpoint still closing, say).
   */
  def removed(run: String): Boolean =
    try ZKUtil.deleteRecursive(client.getZookeeperClient.getZooKeeper, run, 1000)
    catch { case _: KeeperException.NoNodeException => false }

  private def others(): Seq[String] =
    try client.getChildren.forPath(ZkPaths(metaStore, runId).runs).asScala.filter(_ != runId).toSeq
    catch { case _: KeeperException.NoNodeException => Nil }
}
