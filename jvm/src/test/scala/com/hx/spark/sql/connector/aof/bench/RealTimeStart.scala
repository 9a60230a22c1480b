package com.hx.spark.sql.connector.aof.bench

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.util.concurrent.{Callable, ConcurrentHashMap, Executors}
import java.util.function.Consumer

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.hadoop.conf.Configuration
import org.apache.zookeeper.KeeperException

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.protocol.{JournalPlans, ZkPaths, ZnodeValues}
import com.hx.spark.sql.connector.aof.testkit.{TempDirectories, ZooKeeperProcess}
import com.hx.spark.sql.connector.aof.zookeeper.{JournalCopies, ZkClients, ZkPlanJournal}

/**
 * The driver's share of a real-time batch's start at fleet size: the plan journals of every host
 * put back from the checkpoint where ZooKeeper lacks them, then opened for the batch, on a real
 * ZooKeeper server. Each batch starts where the one before ended, inside the plan each host's
 * task kept, as a running query's batches do. Between batches each host's task opens its journal
 * and keeps a plan, timed apart: its opening. Four ways in one run, batch after batch in turn:
 * the driver reading and writing each journal for the batch's start, one host after another as it
 * did first (the same requests, each awaited), then all hosts together as it did next; and the
 * driver giving each journal a version, which the task opens for its start under
 * ([[JournalCopies.open]]), for each host, then all hosts together. Then the query's stop: every
 * journal fenced and copied into the checkpoint. Writes a Markdown table.
 *
 * `build/sbt "aof/Test/runMain com.hx.spark.sql.connector.aof.bench.RealTimeStart <out.md>"`
 */
object RealTimeStart {
  private val Hosts = 1000
  private val FilesPerHost = 100
  private val WarmUpBatches = 10
  private val Batches = 20
  private val Store = "/bench"

  private final case class Way(
      name: String,
      start: Map[String, Option[HostOffsets]] => Unit,
      stop: Seq[String] => Unit)

  def main(args: Array[String]): Unit = {
    val out = Paths.get(args.head)
    // Other work on the machine shows in the figures: the header says how busy it was.
    val load = ManagementFactory.getOperatingSystemMXBean.getSystemLoadAverage
    val root = Files.createTempDirectory("aof-realtime-start-")
    val zk = ZooKeeperProcess.start(Files.createDirectory(root.resolve("zk")))
    val client = ZkClients.open(zk.access, Store)
    val tasks = Executors.newFixedThreadPool(8)
    try {
      val copies = new JournalCopies(new Configuration(), root.toString, Store)
      val oneByOne = (hosts: Seq[String]) => hosts.foreach(h => copies.save(client, Seq(h)))
      val ways = Seq(
        Way(
          "the driver writes each journal, one host after another (as first)",
          starts => {
            starts.keys.foreach(h => restoreBefore(client, copies, h))
            starts.foreach { case (h, o) => openBefore(client, h, o) }
          },
          oneByOne
        ),
        Way(
          "the driver writes each journal, all hosts together (as before)",
          starts => {
            copies.restore(client, starts.keys)
            openAllBefore(client, starts)
          },
          hosts => copies.save(client, hosts)
        ),
        Way(
          "each task writes its journal: `open` for each host",
          starts => starts.keys.foreach(h => copies.open(client, Seq(h))),
          oneByOne
        ),
        Way(
          "each task writes its journal: all hosts together (`openAll`)",
          starts => copies.open(client, starts.keys),
          hosts => copies.save(client, hosts)
        )
      )
      val hosts = (0 until Hosts).map(i => f"node-$i%04d.example.com")
      // The ways take turns, batch after batch, on the same journals.
      val timings = (0 until WarmUpBatches + Batches)
        .map { round =>
          ways.zipWithIndex.map { case (way, i) =>
            val batch = round * ways.size + i
            val starts = hosts.map(h => h -> Some(offsets(batch))).toMap
            val began = System.nanoTime()
            way.start(starts)
            val ms = (System.nanoTime() - began) / 1e6
            // Each host's task plans up to the next batch's start, which then lies inside it.
            val kept = hosts.map { h =>
              new Callable[Double] {
                override def call(): Double = {
                  val version = client.checkExists().forPath(ZkPaths.journal(Store, h)).getVersion
                  val opening = System.nanoTime()
                  val task = new ZkPlanJournal(client, Store, h, starts(h), version, copies.key)
                  val openMs = (System.nanoTime() - opening) / 1e6
                  task.keep(offsets(batch + 1))
                  openMs
                }
              }
            }
            (ms, tasks.invokeAll(kept.asJava).asScala.map(_.get()).toSeq)
          }
        }
        .drop(WarmUpBatches)
      val stops = ways.map { way =>
        val began = System.nanoTime()
        way.stop(hosts)
        (System.nanoTime() - began) / 1e6
      }
      val rows = ways.indices.map { i =>
        val sorted = timings.map(_(i)._1).sorted
        val p95 = sorted(math.min(Batches - 1, Batches * 95 / 100))
        val opens = timings.flatMap(_(i)._2).sorted
        val open = opens(opens.size / 2)
        f"| ${ways(i).name} | ${sorted(Batches / 2)}%.0f | $p95%.0f | $open%.1f | " +
          f"${stops(i)}%.0f |\n"
      }
      val table = "| journals opened | batch start p50 (ms) | p95 (ms) | " +
        "a task's opening p50 (ms) | stop (ms) |\n|---|---:|---:|---:|---:|\n" + rows.mkString
      val startBytes = AofOffset(Map(hosts.head -> offsets(0))).json().length
      val header =
        "# A real-time batch's start at 1,000 hosts\n\nWritten by `make bench-realtime-start` " +
          "(`RealTimeStart`); do not edit by hand. The driver's share of a real-time batch's " +
          s"start: the plan journals of $Hosts hosts ($FilesPerHost files each) looked for, " +
          "then opened for the batch's start, on a real ZooKeeper server on this machine " +
          s"(${Runtime.getRuntime.availableProcessors} cores). A journal's start holds its " +
          s"host's offsets in full ($startBytes bytes of JSON here), read and written again at " +
          "each batch's start where they moved, and its plans as much again when every file " +
          "moved: here every file of every host, at every batch; by the driver in the first two " +
          "rows, by each host's task in the others. " +
          s"$Batches batches measured after $WarmUpBatches, each starting inside the plan its " +
          "tasks kept. A task's opening: its journal read, and where the driver left it for an " +
          "earlier start, carried over and written for its own, in one transaction (tasks 8 at " +
          "a time here, one a host in a cluster). The stop: every journal fenced and copied " +
          "into the checkpoint, measured once (`save` for each host in the first and third " +
          f"rows). The machine's load average as the run began: $load%.1f.\n\n"
      Files.write(out, (header + table).getBytes(UTF_8))
      print(table)
    } finally {
      tasks.shutdown()
      client.close()
      zk.stop()
      TempDirectories.delete(root)
    }
  }

  /** A host's offsets at the start of `batch`: every file read 100 bytes further. */
  private def offsets(batch: Int): HostOffsets =
    HostOffsets(
      FilesPerHost.toLong,
      (0 until FilesPerHost).map { i =>
        val f = FileOffset(
          s"/var/log/app/service-$i.log",
          FileKey(2049L, 100000L + i),
          0L,
          0L,
          1000L + 100L * batch,
          Fingerprint(1024, f"$i%032x"),
          Some(Fingerprint(1024, f"${i + batch}%032x")),
          1000L + 100L * batch
        )
        f.fileId -> f
      }.toMap
    )

  // What the driver did, all hosts together, before each task opened its own journal.
  private def openAllBefore(
      client: CuratorFramework,
      starts: Map[String, Option[HostOffsets]]): Unit = {
    val paths = starts.map { case (host, _) => host -> ZkPaths.journal(Store, host) }
    val stored = ZkPlanJournal.textsAll(client, paths.values)
    val written = new ConcurrentHashMap[String, (String, String)]()
    starts.toSeq.asJava
      .parallelStream()
      .forEach(new Consumer[(String, Option[HostOffsets])] {
        override def accept(item: (String, Option[HostOffsets])): Unit = {
          val (host, start) = item
          val segments = stored(paths(host)).fold(Seq.empty[HostOffsets]) { case (from, plans) =>
            val fromOffsets =
              if (from == "new host") None else AofOffset.fromJson(from).hosts.values.headOption
            JournalPlans.reopened(host, start, fromOffsets, plans)
          }
          val startText = start.fold("new host")(s => AofOffset(Map(host -> s)).json())
          written.put(paths(host), (startText, JournalPlans.write(host, start, segments)))
        }
      })
    ZkPlanJournal.storeAll(client, written.asScala.toMap)
    // A version for each, all requests sent together: `fenceAll` does that.
    ZkPlanJournal.fenceAll(client, paths.values)
  }

  // What the driver did for each host before the journals were opened together.
  private def restoreBefore(client: CuratorFramework, copies: JournalCopies, host: String): Unit =
    if (client.checkExists().forPath(s"${ZkPaths.journal(Store, host)}/plans") == null) {
      copies.restore(client, Seq(host))
    }

  private def openBefore(
      client: CuratorFramework,
      host: String,
      start: Option[HostOffsets]): Int = {
    val path = ZkPaths.journal(Store, host)
    val text = (p: String) => ZnodeValues.get(client, p).map(new String(_, UTF_8))
    val stored = for (s <- text(s"$path/start"); plans <- text(s"$path/plans")) yield (s, plans)
    val segments = stored.fold(Seq.empty[HostOffsets]) { case (from, plans) =>
      val fromOffsets =
        if (from == "new host") None else AofOffset.fromJson(from).hosts.values.headOption
      JournalPlans.reopened(host, start, fromOffsets, plans)
    }
    val startText = start.fold("new host")(s => AofOffset(Map(host -> s)).json())
    ZnodeValues.put(client, s"$path/start", startText.getBytes(UTF_8))
    val plans = JournalPlans.write(host, start, segments).getBytes(UTF_8)
    try client.setData().forPath(s"$path/plans", plans)
    catch {
      case _: KeeperException.NoNodeException =>
        client.create().creatingParentsIfNeeded().forPath(s"$path/plans", plans)
    }
    client.setData().forPath(path, Array.emptyByteArray).getVersion
  }
}
