package com.hx.spark.sql.connector.aof.zookeeper

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.JavaConverters._

import org.apache.curator.RetryLoop
import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{KeeperException, Op, OpResult}
import org.apache.zookeeper.KeeperException.Code

import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.protocol.{JournalPlans, ZkPaths, ZnodeValues}

/**
 * A host's [[PlanJournal]] in ZooKeeper, at `<metaStore>/realtime/<host>`: its start offsets in
 * the child `start`, and the plans kept since in the child `plans` ([[JournalPlans]]). The driver
 * opens it before each batch by giving it a new version ([[ZkPlanJournal.openAll]]), and fences
 * it when the query stops ([[ZkPlanJournal.fence]]), before it copies it ([[JournalCopies]]).
 * The batch's task then opens it for its start ([[JournalOpening]]), carrying over what an
 * earlier batch that ended inside it left to read. The task writes it, at its opening and at
 * each plan, only while its version is still the one the driver gave it for this batch, in one
 * transaction: a task that Spark has not stopped yet cannot return lines of a plan the copy
 * lacks, and the next batch's opening fences the tasks of earlier ones the same way.
 *
 * Its start and plans are sealed with the query's journal key, kept in its checkpoint
 * ([[JournalCopies.key]]): anyone may be able to write ZooKeeper, and a journal's plans name the
 * files its task reads and where (design §13). One whose seal fails is ignored, and said.
 *
 * @param version the journal's version when the driver opened it for this batch
 * @param key     the query's journal key
 */
final class ZkPlanJournal(
    client: CuratorFramework,
    metaStore: String,
    host: String,
    start: Option[HostOffsets],
    version: Int,
    key: String)
    extends PlanJournal {
  import ZkPlanJournal._

  private val path = ZkPaths.journal(metaStore, host)
  // Its digest is made once: it hashes every file the host has.
  private val text = new JournalPlans.Text(host, start)
  private val seal = new JournalSeal(host, path, key)
  private var segments = fenced(JournalOpening(client, path, start, text, version, seal))

  override val planned: Seq[HostOffsets] = segments

  override def keep(end: HostOffsets): Unit = {
    val next = JournalPlans.kept(segments, end)
    val written = seal.plans(text.write(next)).getBytes(UTF_8)
    // A first plan over thousands of files is larger than a znode: it goes in parts.
    val plansPath = s"$path/$Plans"
    val staged = ZnodeValues.stage(client, plansPath, written, ZnodeValues.PartBytes)
    val results =
      fenced(
        transaction(client, Seq(Op.check(path, version), Op.setData(plansPath, staged.head, -1))))
    ZnodeValues.settle(client, plansPath, staged, childrenAfter(results(1)))
    segments = next
  }

  private def fenced[A](write: => A): A =
    try write
    catch {
      case e @ (_: KeeperException.BadVersionException | _: KeeperException.NoNodeException) =>
        throw new IllegalStateException(
          s"aof: the real-time batch reading host $host was stopped; its task returns no " +
            "more lines (they come in the next batch).",
          e)
    }

  override def close(): Unit = client.close()
}

object ZkPlanJournal {
  private val Start = "start"
  private val Plans = "plans"
  private val NewHost = "new host"
  private val Stopped = "stopped".getBytes(UTF_8)

  /** Opens the journal of `host` for a batch; returns the version its task writes it under. */
  def open(client: CuratorFramework, metaStore: String, host: String): Int =
    openAll(client, metaStore, Seq(host))(host)

  /**
   * Opens the journals of a batch's hosts: gives each a new version, which fences the tasks of
   * earlier batches, all in one round trip however many hosts there are. Each journal is then
   * opened for its host's start by the batch's task ([[JournalOpening]]). `restore` is first
   * given those ZooKeeper lacks (host and path): those without plans, or without a znode, which
   * are then made. Returns each host's version.
   */
  def openAll(
      client: CuratorFramework,
      metaStore: String,
      hosts: Iterable[String],
      restore: Map[String, String] => Unit = _ => ()): Map[String, Int] = {
    val paths = hosts.map(host => host -> ZkPaths.journal(metaStore, host)).toMap
    val stats = Pipelined.setStats(client, paths.values.map(_ -> Array.emptyByteArray).toMap)
    // A journal's children are its start and plans: with fewer, ZooKeeper lacks its plans.
    val lacking = paths.filter { case (_, path) => stats(path).forall(_.getNumChildren < 2) }
    if (lacking.nonEmpty) restore(lacking)
    val absent = paths.values.filter(stats(_).isEmpty)
    val made =
      if (absent.isEmpty) Map.empty[String, Option[Int]]
      else {
        val none = absent.map(_ -> Array.emptyByteArray).toMap
        Pipelined.setOrCreate(client, none)
        // Versions above a new znode's 0, as any other opened journal's.
        Pipelined.set(client, none)
      }
    paths.map { case (host, path) =>
      host -> made
        .getOrElse(path, stats(path).map(_.getVersion))
        .getOrElse(throw KeeperException.create(Code.NONODE, path))
    }
  }

  /** The children a znode set by a transaction's `result` has. */
  private[zookeeper] def childrenAfter(result: OpResult): Int =
    result.asInstanceOf[OpResult.SetDataResult].getStat.getNumChildren

  /**
   * ZooKeeper's own transaction: Curator 2's (Spark 3) fails against ZooKeeper 3.6's client. Sent
   * once as it is, and through Curator's retry loop only when it failed for want of an answer (a
   * refused op comes with the ops' results): the loop looks up a logger each time it is made (a
   * walk of the stack), which a real-time task would pay at each look.
   */
  private[zookeeper] def transaction(client: CuratorFramework, ops: Seq[Op]): Seq[OpResult] = {
    val zk = client.getZookeeperClient
    val results =
      try zk.getZooKeeper.multi(ops.asJava)
      catch {
        case e: KeeperException if e.getResults == null =>
          RetryLoop.callWithRetry(zk, () => zk.getZooKeeper.multi(ops.asJava))
      }
    results.asScala.toSeq
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
    val plans = journals.map { case (path, (_, p)) => s"$path/$Plans" -> p.getBytes(UTF_8) }
    ZnodeValues
      .putAll(client, plans, Pipelined.TimeoutMs)
      .headOption
      .foreach { case (_, e) => throw e }
  }

  private[zookeeper] def startText(host: String, start: Option[HostOffsets]): String =
    start.fold(NewHost)(s => AofOffset(Map(host -> s)).json())

  private[zookeeper] def startOf(text: String): Option[HostOffsets] =
    if (text == NewHost) None else AofOffset.fromJson(text).hosts.values.headOption
}
