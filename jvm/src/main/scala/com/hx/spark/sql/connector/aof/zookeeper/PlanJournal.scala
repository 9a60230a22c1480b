package com.hx.spark.sql.connector.aof.zookeeper

import java.io.Closeable
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ConcurrentHashMap
import java.util.function.Consumer

import scala.collection.JavaConverters._

import org.apache.curator.RetryLoop
import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{KeeperException, Op}
import org.apache.zookeeper.KeeperException.Code

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
      start: Option[HostOffsets]): Int =
    openAll(client, metaStore, Map(host -> start))(host)

  /**
   * Opens the journals of a batch's hosts, each as [[open]] does, in a few round trips however
   * many hosts there are: all read, then all written, then all given their new version.
   */
  def openAll(
      client: CuratorFramework,
      metaStore: String,
      starts: Map[String, Option[HostOffsets]]): Map[String, Int] = {
    val paths = starts.map { case (host, _) => host -> ZkPaths.journal(metaStore, host) }
    val stored = textsAll(client, paths.values)
    // On every core: at a thousand hosts, the offsets' JSON and digests take longer than the
    // round trips.
    val written = onEveryCore(starts) { (host, start) =>
      val segments = stored(paths(host)).fold(Seq.empty[HostOffsets]) { case (from, plans) =>
        JournalPlans.reopened(host, start, startOf(from), plans)
      }
      (startText(host, start), JournalPlans.write(host, start, segments))
    }
    storeAll(client, written.map { case (host, texts) => paths(host) -> texts })
    // Last, once the plans the batch reads are stored: a task opened before keeps none after.
    val versions = Pipelined.set(client, paths.values.map(_ -> Array.emptyByteArray).toMap)
    paths.map { case (host, path) =>
      host -> versions(path).getOrElse(throw KeeperException.create(Code.NONODE, path))
    }
  }

  /** Stops every task that has the journal at `path` open from keeping another plan. */
  def fence(client: CuratorFramework, path: String): Unit = fenceAll(client, Seq(path))

  /** [[fence]] for each of `paths`, in one round trip. */
  def fenceAll(client: CuratorFramework, paths: Iterable[String]): Unit =
    Pipelined.set(client, paths.map(_ -> Stopped).toMap)

  /** Whether ZooKeeper holds a journal at `path`. */
  def exists(client: CuratorFramework, path: String): Boolean =
    existing(client, Seq(path)).nonEmpty

  /** Those of `paths` where ZooKeeper holds a journal, asked in one round trip. */
  def existing(client: CuratorFramework, paths: Iterable[String]): Set[String] = {
    val plans = paths.map(p => s"$p/$Plans" -> p).toMap
    Pipelined.existing(client, plans.keys).map(plans)
  }

  /** The journal at `path` as stored: its start and its plans, as text; None when it has none. */
  def texts(client: CuratorFramework, path: String): Option[(String, String)] =
    textsAll(client, Seq(path))(path)

  /** [[texts]] of each of `paths`, read together. */
  def textsAll(
      client: CuratorFramework,
      paths: Iterable[String]): Map[String, Option[(String, String)]] = {
    val values = Pipelined.values(client, paths.flatMap(p => Seq(s"$p/$Start", s"$p/$Plans")))
    paths.map { path =>
      path -> (for {
        start <- values(s"$path/$Start")
        plans <- values(s"$path/$Plans")
      } yield (new String(start, UTF_8), new String(plans, UTF_8)))
    }.toMap
  }

  /** Writes a journal as [[texts]] gives it: the plans after the start, which they name. */
  def store(client: CuratorFramework, path: String, start: String, plans: String): Unit =
    storeAll(client, Map(path -> ((start, plans))))

  /** [[store]] for each journal, by path: every start, then every plans, each sent together. */
  def storeAll(client: CuratorFramework, journals: Map[String, (String, String)]): Unit = {
    val starts = journals.map { case (path, (start, _)) => s"$path/$Start" -> start }
    ZnodeValues
      .putAll(client, starts.map { case (p, s) => p -> s.getBytes(UTF_8) }, Pipelined.TimeoutMs)
      .headOption
      .foreach { case (_, e) => throw e }
    Pipelined.setOrCreate(
      client,
      journals.map { case (path, (_, plans)) => s"$path/$Plans" -> plans.getBytes(UTF_8) })
  }

  private def onEveryCore[A, B](items: Map[String, A])(f: (String, A) => B): Map[String, B] = {
    val done = new ConcurrentHashMap[String, B]()
    items.toSeq.asJava
      .parallelStream()
      .forEach(new Consumer[(String, A)] {
        override def accept(item: (String, A)): Unit = done.put(item._1, f(item._1, item._2))
      })
    done.asScala.toMap
  }

  private def startText(host: String, start: Option[HostOffsets]): String =
    start.fold(NewHost)(s => AofOffset(Map(host -> s)).json())

  private def startOf(text: String): Option[HostOffsets] =
    if (text == NewHost) None else AofOffset.fromJson(text).hosts.values.headOption
}
