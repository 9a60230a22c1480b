package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Try

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.recipes.cache.{
  PathChildrenCache,
  PathChildrenCacheEvent,
  PathChildrenCacheListener
}
import org.apache.zookeeper.CreateMode
import org.slf4j.LoggerFactory

/**
 * A read task that Spark ran on a host other than its files' cannot read them. Failing would
 * count towards `spark.task.maxFailures`, and a host whose tasks queue for longer than the
 * locality wait (it lost an executor, another job holds its slots) sends them elsewhere over and
 * over: the query would stop. So the task asks the driver to kill it instead, and Spark queues a
 * killed task again without counting a failure. Spark has no way for a task to end itself as
 * killed, hence the round trip: the task writes an ephemeral znode
 * `<run>/misplaced/<task attempt id>` holding its attempt id sealed with the run's secret, and the
 * driver's watch kills that attempt (`SparkContext.killTaskAttempt`).
 */
object MisplacedTasks {

  /** The payload: the attempt id and the two hosts, so a sealed value names one attempt only. */
  def encode(taskAttemptId: Long, wanted: String, ran: String, runKey: String): Array[Byte] =
    MessageSeal.seal(s"$taskAttemptId $wanted $ran".getBytes(UTF_8), runKey)

  /** (attempt id, wanted host, host it ran on), or None when not sealed by this run. */
  def decode(value: Array[Byte], runKey: String): Option[(Long, String, String)] =
    Try(new String(MessageSeal.open(value, runKey), UTF_8).split(" ", 3)).toOption.collect {
      case Array(id, wanted, ran) if Try(id.toLong).isSuccess => (id.toLong, wanted, ran)
    }

  /** Why the task was killed, as Spark shows it. */
  def reason(wanted: String, ran: String): String =
    s"aof: a task for files of host $wanted ran on $ran; queued again for $wanted"

  /** Executor side: asks for the kill; the znode goes with the client, when the task ends. */
  def report(
      spec: EndpointSpec,
      taskAttemptId: Long,
      wanted: String,
      ran: String): AutoCloseable = {
    val client = ZkClients.open(spec.zk, spec.metaStore)
    try {
      client
        .create()
        .creatingParentsIfNeeded()
        .withMode(CreateMode.EPHEMERAL)
        .forPath(
          s"${ZkPaths(spec.metaStore, spec.runId).misplaced}/$taskAttemptId",
          encode(taskAttemptId, wanted, ran, spec.runKey))
      client
    } catch {
      case e: Throwable =>
        client.close()
        throw e
    }
  }

  /** Driver side: kills each misplaced attempt of the run as it is reported. */
  final class Watch(client: CuratorFramework, paths: ZkPaths, runKey: String) {
    private val log = LoggerFactory.getLogger(getClass)
    private val cache = new PathChildrenCache(client, paths.misplaced, true)

    /** @param kill kills a task attempt with the reason given */
    def start(kill: (Long, String) => Unit): Unit = {
      cache.getListenable.addListener(new PathChildrenCacheListener {
        override def childEvent(c: CuratorFramework, e: PathChildrenCacheEvent): Unit =
          if (e.getType == PathChildrenCacheEvent.Type.CHILD_ADDED) {
            decode(e.getData.getData, runKey) match {
              case Some((id, wanted, ran)) =>
                kill(id, reason(wanted, ran))
              case None => log.warn(s"aof: ignoring ${e.getData.getPath}: not sealed by this run")
            }
          }
      })
      cache.start(PathChildrenCache.StartMode.NORMAL)
    }

    def close(): Unit = cache.close()
  }
}
