package com.hx.spark.sql.connector.aof.zookeeper

import java.io.Closeable
import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.JavaConverters._

import org.apache.curator.RetryLoop
import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{KeeperException, Op}

import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.protocol.{JournalPlans, ZkPaths, ZnodeValues}

/**
 * The plans a host's real-time task made from one start, kept before any of their rows is
 * returned. Spark commits a real-time batch only at its end, so a batch stopped or failed before
 * is run again from the same start; its task then reads these plans again, range by range, as a
 * replayed micro-batch does, and only then plans anew. So every line it returned before comes
 * again with the same `(host, file_id, offset)`, however the files were rotated since: a file's
 * id depends on when it was first planned, and the plans say when that was.
 */
trait PlanJournal extends Closeable {

  /** The plans kept for this start, in the order they were made: each one's end. */
  def planned: Seq[HostOffsets]

  /** Keeps a plan's end; returns once it is stored. */
  def keep(end: HostOffsets): Unit
}

/**
 * A host's [[PlanJournal]] in ZooKeeper, at `<metaStore>/realtime/<host>`: its start offsets in
 * the child `start`, and the plans kept since in the child `plans` ([[JournalPlans]]). The driver
 * opens it before each batch ([[ZkPlanJournal.open]]), for that batch's start, carrying over what
 * an earlier batch that ended inside it left to read; and fences it when the query stops
 * ([[ZkPlanJournal.fence]]), before it copies it ([[JournalCopies]]). A plan is kept only while
 * the journal's version is still the one the driver opened, in one transaction, so a task that
 * Spark has not stopped yet cannot return lines of a plan the copy lacks; opening it again fences
 * the tasks of earlier runs the same way.
 *
 * @param version the journal's version when the driver opened it for this batch
 */
final class ZkPlanJournal(
    client: CuratorFramework,
    metaStore: String,
    host: String,
    start: Option[HostOffsets],
    version: Int)
    extends PlanJournal {
  import ZkPlanJournal._

  private val path = ZkPaths.journal(metaStore, host)
  private val text = new JournalPlans.Text(host, start)
  // The plans alone: they name the start they were kept for, which the task has.
  private var segments = ZnodeValues
    .get(client, s"$path/$Plans")
    .fold(Seq.empty[HostOffsets])(p => text.read(new String(p, UTF_8)))

  override val planned: Seq[HostOffsets] = segments

  override def keep(end: HostOffsets): Unit = {
    val next = JournalPlans.kept(segments, end)
    val written = text.write(next).getBytes(UTF_8)
    // ZooKeeper's own transaction: Curator 2's (Spark 3) fails against ZooKeeper 3.6's client.
    val kept = Seq(Op.check(path, version), Op.setData(s"$path/$Plans", written, -1))
    try {
      RetryLoop.callWithRetry(
        client.getZookeeperClient,
        () => client.getZookeeperClient.getZooKeeper.multi(kept.asJava))
    } catch {
      case e @ (_: KeeperException.BadVersionException | _: KeeperException.NoNodeException) =>
        throw new IllegalStateException(
          s"aof: the real-time batch reading host $host was stopped; its task returns no " +
            "more lines (they come in the next batch).",
          e)
    }
    segments = next
  }

  override def close(): Unit = client.close()
}

object ZkPlanJournal {
  private val Start = "start"
  private val Plans = "plans"
  private val NewHost = "new host"
  private val Stopped = "stopped".getBytes(UTF_8)

  /**
   * Opens the journal of `host` for a batch that starts at `start`: the plans kept from that
   * start are kept (the same batch again), or those an earlier batch left to read past it are
   * carried over, or none. Returns the version the batch's task keeps plans under.
   */
  def open(
      client: CuratorFramework,
      metaStore: String,
      host: String,
      start: Option[HostOffsets]): Int = {
    val path = ZkPaths.journal(metaStore, host)
    val segments = stored(client, path).fold(Seq.empty[HostOffsets]) { case (from, plans) =>
      JournalPlans.reopened(host, start, from, plans)
    }
    store(client, path, startText(host, start), JournalPlans.write(host, start, segments))
    client.setData().forPath(path, Array.emptyByteArray).getVersion
  }

  /** Stops every task that has the journal at `path` open from keeping another plan. */
  def fence(client: CuratorFramework, path: String): Unit =
    try client.setData().forPath(path, Stopped)
    catch { case _: KeeperException.NoNodeException => () }

  /** Whether ZooKeeper holds a journal at `path`. */
  def exists(client: CuratorFramework, path: String): Boolean =
    client.checkExists().forPath(s"$path/$Plans") != null

  /** The journal at `path` as stored: its start and its plans, as text; None when it has none. */
  def texts(client: CuratorFramework, path: String): Option[(String, String)] =
    for {
      start <- ZnodeValues.get(client, s"$path/$Start")
      plans <- ZnodeValues.get(client, s"$path/$Plans")
    } yield (new String(start, UTF_8), new String(plans, UTF_8))

  /** Writes a journal as [[texts]] gives it: the plans after the start, which they name. */
  def store(client: CuratorFramework, path: String, start: String, plans: String): Unit = {
    ZnodeValues.put(client, s"$path/$Start", start.getBytes(UTF_8))
    try client.setData().forPath(s"$path/$Plans", plans.getBytes(UTF_8))
    catch {
      case _: KeeperException.NoNodeException =>
        client.create().creatingParentsIfNeeded().forPath(s"$path/$Plans", plans.getBytes(UTF_8))
    }
  }

  private def stored(
      client: CuratorFramework,
      path: String): Option[(Option[HostOffsets], String)] =
    texts(client, path).map { case (start, plans) => (startOf(start), plans) }

  private def startText(host: String, start: Option[HostOffsets]): String =
    start.fold(NewHost)(s => AofOffset(Map(host -> s)).json())

  private def startOf(text: String): Option[HostOffsets] =
    if (text == NewHost) None else AofOffset.fromJson(text).hosts.values.headOption
}
