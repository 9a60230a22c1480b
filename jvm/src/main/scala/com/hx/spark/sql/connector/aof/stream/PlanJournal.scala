package com.hx.spark.sql.connector.aof.stream

import java.io.Closeable
import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import scala.collection.JavaConverters._

import org.apache.curator.RetryLoop
import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{CreateMode, KeeperException, Op}

import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets, OffsetJson, OffsetSnapshot}
import com.hx.spark.sql.connector.aof.protocol.ZkPaths

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

object PlanJournal {

  /** For a task that is never run again (tests of other things). */
  object None extends PlanJournal {
    override def planned: Seq[HostOffsets] = Nil
    override def keep(end: HostOffsets): Unit = ()
    override def close(): Unit = ()
  }
}

/**
 * A [[PlanJournal]] in ZooKeeper: `<metaStore>/realtime/<host>/<start>/plan-<n>`, one znode per
 * plan, each holding what changed since the one before. `<start>` is a digest of the host's
 * offsets where the task starts: a run of the same batch, or a later batch that starts there
 * because the first ended where it began, finds the plans; another start does not.
 *
 * The driver opens the journal for each batch ([[ZkPlanJournal.open]]) and fences it when the
 * query stops ([[ZkPlanJournal.fence]]), before copying it: a plan is kept only while the
 * journal's version is still the one its batch opened, in one transaction, so a task that Spark
 * has not stopped yet cannot return lines of a plan the copy lacks. Opening it again fences the
 * tasks of earlier runs the same way.
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

  private val path = pathOf(metaStore, host, start)
  private var last = start.getOrElse(HostOffsets.Empty)

  override val planned: Seq[HostOffsets] = entries(client, path).map { bytes =>
    last = read(new String(bytes, UTF_8), host, last)
    last
  }

  // Plans get the ACL the driver gave the journal (the source's identity, when it has one).
  private lazy val acl = client.getACL.forPath(path)

  override def keep(end: HostOffsets): Unit = {
    val entry = write(host, last, end).getBytes(UTF_8)
    // ZooKeeper's own transaction: Curator 2's (Spark 3) fails against ZooKeeper 3.6's client.
    val kept = Seq(
      Op.check(path, version),
      Op.create(s"$path/plan-", entry, acl, CreateMode.PERSISTENT_SEQUENTIAL))
    try {
      // A retry after a lost connection may keep the plan twice: read again, it adds nothing.
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
    last = end
  }

  override def close(): Unit = client.close()
}

object ZkPlanJournal {
  private val Previous = "previous"
  private val Stopped = "stopped".getBytes(UTF_8)

  /** Where the journal of a task that starts at `start` on `host` lives. */
  def pathOf(metaStore: String, host: String, start: Option[HostOffsets]): String =
    s"$metaStore/realtime/${ZkPaths.encode(host)}/${digest(host, start)}"

  /**
   * Opens the journal at `path` for a batch's task, keeping the plans it already holds, and
   * removes the host's journals of other starts: a batch begins only once the one before it was
   * committed, so nothing runs from them again. Returns the version the task keeps plans under.
   */
  def open(client: CuratorFramework, path: String): Int = {
    val hostPath = path.substring(0, path.lastIndexOf('/'))
    children(client, hostPath).filterNot(s => path.endsWith(s"/$s")).foreach { s =>
      try client.delete().deletingChildrenIfNeeded().forPath(s"$hostPath/$s")
      catch { case _: KeeperException.NoNodeException => () }
    }
    try client.create().creatingParentsIfNeeded().forPath(path)
    catch { case _: KeeperException.NodeExistsException => () }
    client.setData().forPath(path, Array.emptyByteArray).getVersion
  }

  /** Stops every task that has the journal at `path` open from keeping another plan. */
  def fence(client: CuratorFramework, path: String): Unit =
    try client.setData().forPath(path, Stopped)
    catch { case _: KeeperException.NoNodeException => () }

  /** The plans kept at `path`, in order, as stored. */
  def entries(client: CuratorFramework, path: String): Seq[Array[Byte]] =
    children(client, path).sorted.map(n => client.getData.forPath(s"$path/$n"))

  /** Keeps one more plan, as stored, after those at `path`: a journal copied back. */
  def append(client: CuratorFramework, path: String, entry: Array[Byte]): Unit =
    client
      .create()
      .creatingParentsIfNeeded()
      .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
      .forPath(s"$path/plan-", entry)

  private def children(client: CuratorFramework, path: String): Seq[String] =
    try client.getChildren.forPath(path).asScala.toSeq
    catch { case _: KeeperException.NoNodeException => Nil }

  /**
   * A digest of where a task starts: its host and that host's offsets, if any, in an order of
   * their own (the same offsets, parsed from the checkpoint or merged by the driver, are maps
   * built in other orders).
   */
  def digest(host: String, start: Option[HostOffsets]): String = {
    val text = start.fold(s"new host $host") { o =>
      (s"$host ${o.nextSerial}" +: (o.files.toSeq ++ o.retired.toSeq).sortBy(_._1).map(_.toString))
        .mkString("\n")
    }
    MessageDigest.getInstance("MD5").digest(text.getBytes(UTF_8)).map("%02x".format(_)).mkString
  }

  /** `end` as what changed since `previous`. */
  def write(host: String, previous: HostOffsets, end: HostOffsets): String =
    OffsetJson.write(
      AofOffset(Map(host -> end), Some(new OffsetSnapshot(Previous, Map(host -> previous)))))

  def read(json: String, host: String, previous: HostOffsets): HostOffsets =
    OffsetJson
      .read(json, _ => new OffsetSnapshot(Previous, Map(host -> previous)))
      .hosts
      .getOrElse(host, HostOffsets.Empty)
}
