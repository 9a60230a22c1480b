package com.hx.spark.sql.connector.aof.bench

import java.io.{BufferedReader, InputStreamReader}
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.util.UUID

import scala.collection.JavaConverters._

import org.apache.hadoop.conf.Configuration

import com.hx.spark.sql.connector.aof.backlog.{SourceMetrics, WriteTimes}
import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.driver.{
  AnswerWarnings, Coordinator, ExpectedNodes, HostNews, NodeCoverage, UnreadNodes
}
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity
import com.hx.spark.sql.connector.aof.offset.{AofOffset, OffsetSnapshots}
import com.hx.spark.sql.connector.aof.plan.{News, PlanLimits, Planner, Ranges}
import com.hx.spark.sql.connector.aof.protocol.{MessageSeal, ZkPaths}
import com.hx.spark.sql.connector.aof.testkit.{TempDirectories, ZooKeeperProcess}
import com.hx.spark.sql.connector.aof.zookeeper.ZkClients

/**
 * The driver's planning at fleet size: a real ZooKeeper server, the real coordinator, host
 * news and planner in this JVM (so its heap is the driver's), and the real endpoint code for
 * every simulated node in child JVMs ([[FleetNodes]]), each node with `FilesPerNode` files of
 * its own (or as many as an argument `<nodes>x<files>` says). Before each trigger a share of the
 * nodes (`@<percent>`, 1% unless said) has a line appended to one file in a thousand (at least
 * one), and the trigger runs `TriggerIntervalMs` later, as a stream's does: its news, its plan
 * (and, when that plans nothing new, the look every endpoint answers), the backlog's figures,
 * the offset Spark checkpoints and the ranges of the batch.
 *
 * All nodes share this machine's cores, where a fleet's nodes answer in parallel: the time to
 * gather answers here is an upper bound of a real fleet's. Writes a Markdown table.
 *
 * `build/sbt "aof/Test/runMain com.hx.spark.sql.connector.aof.bench.FleetPlanning <out.md> 10
 * 1000@1 10000@10 1x10000@100"`
 */
object FleetPlanning {
  val FileNames: String = "app-.*\\.log"
  val NodesReady: String = "nodes serving"
  private val FilesPerNode = 100
  // One file in a thousand of a changing node written to, at least one.
  private val ChangingPerMille = 1
  // Fewer JVMs, more nodes each: a node JVM's own share of memory (its code, compiled again in
  // each, and its collector's) is as much as a thousand nodes' state.
  private val NodesPerJvm = 2500
  private val Triggers = 20
  private val TriggerIntervalMs = 500L
  // Not measured: an endpoint lives as long as its query, so its code runs compiled; the first
  // triggers of a JVM that just started run it interpreted, and compile it.
  private val WarmUpTriggers = 40

  final case class Figures(
      nodes: Int,
      files: Int,
      changing: Int,
      newsP50: Long,
      p50Ms: Long,
      p95Ms: Long,
      newsMs: Long,
      planP50Ms: Long,
      driverCpuMs: Long,
      nodesCpuMs: Long,
      zkCpuMs: Long,
      zkBytes: Long,
      idleMs: Long,
      idleBytes: Long,
      laterIdleMs: Long,
      laterIdleBytes: Long,
      reportBytes: Long,
      offsetBytes: Long,
      wholeBytes: Long,
      heapMb: Long,
      nodesP50Us: Long)

  def main(args: Array[String]): Unit = {
    val out = Paths.get(args.head)
    val root = Files.createTempDirectory("aof-fleet-")
    // Ten thousand nodes' requests, answers and (for a `status`) whole lists: over 100 MB held.
    val zk = ZooKeeperProcess.start(Files.createDirectory(root.resolve("zk")), heapMb = 1024)
    try {
      val figures = args.tail.map { arg =>
        val Array(size, percent) = (arg + "@1").split('@').take(2): @unchecked
        val Array(nodes, perNode) =
          (size + s"x$FilesPerNode").split('x').take(2).map(_.toInt): @unchecked
        // A row's files go before the next row: 10,000 nodes' are over a million files.
        val dir = root.resolve(s"fleet-$arg")
        try measure(zk, dir, nodes, perNode, percent.toInt)
        finally TempDirectories.delete(dir)
      }
      val header =
        "# Planning at fleet size\n\nWritten by `make bench-fleet` (`FleetPlanning`); do not " +
          s"edit by hand. $Triggers triggers measured after $WarmUpTriggers (the nodes' code " +
          s"compiled, as a running query's is), ${TriggerIntervalMs} ms apart; before each, " +
          "a line is appended to one file in a thousand (at least one) of the nodes that " +
          "change. A trigger is what a stream's does on the driver: the news, the plan, the " +
          "backlog's figures, the offset Spark checkpoints and the batch's ranges. " +
          s"${Runtime.getRuntime.availableProcessors} cores shared by the driver, every node " +
          "and ZooKeeper; the nodes run the real endpoint, " + NodesPerJvm + " to a JVM on " +
          s"one ZooKeeper session and ${FleetNodes.Threads} threads (a node's tasks one at a " +
          "time). Times are p50 over the triggers; ZooKeeper bytes are what " +
          "the last trigger's requests and answers wrote. An idle trigger is one after no " +
          "change: the first plans nothing new, so every endpoint looks and answers; a later " +
          "one calls no endpoint and waits for news up to a second. A `status` makes " +
          "every node write its files in full, measured once after the triggers. The last " +
          "column is what the option `nodes`, listing every node, adds to a trigger's driver.\n\n"
      Files.write(out, (header + table(figures.toSeq)).getBytes(UTF_8))
      print(table(figures.toSeq))
    } finally {
      zk.stop()
      TempDirectories.delete(root)
    }
  }

  private def table(figures: Seq[Figures]): String =
    ("| nodes | files | nodes changed a trigger | nodes with news p50 | trigger p50 (ms) | " +
      "p95 (ms) | news p50 (ms) | planner p50 (ms) | driver CPU p50 (ms) | " +
      "all nodes' CPU p50 (ms) | ZooKeeper CPU p50 (ms) | ZooKeeper bytes a trigger | " +
      "an idle trigger: ms, ZooKeeper bytes | a later idle trigger: ms, ZooKeeper bytes | " +
      "a `status`: reports, bytes | " +
      "checkpoint offset bytes, most a trigger (a file) | offsets whole, bytes (a file) | " +
      "driver heap (MB) | `nodes` p50 (ms) |\n" +
      "|" + "---:|" * 19 + "\n") +
      figures.map { f =>
        s"| ${f.nodes} | ${f.files} | ${f.changing} | ${f.newsP50} | ${f.p50Ms} | ${f.p95Ms} | " +
          s"${f.newsMs} | ${f.planP50Ms} | ${f.driverCpuMs} | ${f.nodesCpuMs} | ${f.zkCpuMs} | " +
          s"${f.zkBytes} | ${f.idleMs}, ${f.idleBytes} | ${f.laterIdleMs}, ${f.laterIdleBytes} | " +
          s"${f.reportBytes} | " +
          s"${f.offsetBytes} (${f.offsetBytes / f.files}) | ${f.wholeBytes} " +
          s"(${f.wholeBytes / f.files}) | ${f.heapMb} | ${f.nodesP50Us / 1000.0} |\n"
      }.mkString

  /**
   * A node JVM's heap: a node's state (its files known, described and last answered, 100 files
   * a node) is 0.25 MB live, with room for as much again between collections. At 2 GB a JVM the
   * collector grew every heap to its bound, and eight JVMs of 1,250 nodes filled 24 GB.
   */
  private def nodeHeapMb(nodes: Int): Int = 256 + nodes / 2

  private def heapUsed(): Long = {
    (1 to 3).foreach(_ => System.gc())
    ManagementFactory.getMemoryMXBean.getHeapMemoryUsage.getUsed
  }

  private def measure(
      zk: ZooKeeperProcess,
      root: Path,
      nodes: Int,
      perNode: Int,
      percent: Int): Figures = {
    val changingNodes = math.max(1, nodes * percent / 100)
    val changing = math.max(1, perNode * ChangingPerMille / 1000)
    val files = (0 until nodes).map { i =>
      val dir = Files.createDirectories(root.resolve(s"node-$i"))
      (0 until perNode).map { j =>
        Files.write(dir.resolve(s"app-$j.log"), s"node $i file $j line 0\n".getBytes(UTF_8))
      }
    }
    val heapBefore = heapUsed()
    val (metaStore, runId, runKey) = ("/fleet", UUID.randomUUID().toString, MessageSeal.newKey())
    val client = ZkClients.open(zk.access, metaStore)
    val coordinator = new Coordinator(client, metaStore, runId, runKey)
    coordinator.start()
    val children = (0 until nodes by NodesPerJvm).map { first =>
      val count = math.min(NodesPerJvm, nodes - first).toString
      val java = Paths.get(System.getProperty("java.home"), "bin", "java").toString
      val args = Seq(zk.connectString, metaStore, runId, runKey, root.toString, first.toString)
      val process = new ProcessBuilder(
        (Seq(java, s"-Xmx${nodeHeapMb(count.toInt)}m", "-Xss256k") ++
          Seq("-cp", System.getProperty("java.class.path")) ++
          Seq(FleetNodes.getClass.getName.stripSuffix("$")) ++ args :+ count): _*)
        .redirectErrorStream(true)
      // The C library's memory pools, one a thread that allocates up to 8 a core by default:
      // two serve a JVM of a few threads.
      process.environment().put("MALLOC_ARENA_MAX", "2")
      process.start()
    }
    try {
      children.foreach { child =>
        val lines = new BufferedReader(new InputStreamReader(child.getInputStream, UTF_8))
        Iterator.continually(lines.readLine()).takeWhile(_ != NodesReady).foreach { line =>
          if (line == null) throw new IllegalStateException("simulated nodes did not start")
        }
        // Drained, so that a child never blocks on a full pipe.
        val drain = new Thread(() => Iterator.continually(lines.readLine()).takeWhile(_ != null))
        drain.setDaemon(true)
        drain.start()
      }
      val hosts = (0 until nodes).map(i => s"node-$i").toSet
      val deadline = System.nanoTime() + 600L * 1000 * 1000 * 1000
      while (coordinator.liveHosts() != hosts) {
        require(System.nanoTime() < deadline, s"${coordinator.liveHosts().size} nodes serve")
        Thread.sleep(100) // polling the registry with a deadline
      }
      val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))
      // No executors: the nodes' endpoints run already, so none is launched.
      val hostNews = new HostNews(
        () => Map.empty,
        _ => throw new IllegalStateException("no launch in the benchmark"),
        nodeNamed = false,
        startAwaitMs = 600000L,
        metaAwaitMs = 120000L,
        new AnswerWarnings(Seq(root.toString), _ => (), _ => ())
      )
      // The option `nodes` listing every node, as a driver with it checks them at each trigger.
      val coverage = new NodeCoverage(
        ExpectedNodes.listed(hosts),
        new UnreadNodes(3, 10000L, java.time.Clock.systemUTC(), "", _ => (), _ => ()),
        None,
        "",
        coordinator.publish)
      val paths = ZkPaths(metaStore, runId)
      var start = AofOffset.Empty
      // As Spark's offset log with spark.sql.streaming.minBatchesToRetain=1: the last commit.
      var committed = Option.empty[String]
      val checkpoint = root.resolve("checkpoint").toString
      val snapshots = new OffsetSnapshots(new Configuration(), checkpoint, () => committed)
      val writeTimes = new WriteTimes
      // CPU milliseconds of this JVM, and of other processes (from /proc: clock ticks of 10 ms).
      val os = ManagementFactory.getOperatingSystemMXBean
        .asInstanceOf[com.sun.management.OperatingSystemMXBean]
      def cpuMs(pid: Long): Long = {
        val stat = new String(Files.readAllBytes(Paths.get(s"/proc/$pid/stat")), UTF_8)
        val fields = stat.substring(stat.lastIndexOf(')') + 2).split(' ')
        (fields(11).toLong + fields(12).toLong) * 10L // utime and stime
      }
      def nodesCpuMs(): Long = children.map(child => cpuMs(child.pid())).sum
      // What a stream's latestOffset and planInputPartitions do on the driver. Milliseconds in
      // all, taking the news and planning; driver CPU; hosts with news; checkpointed bytes;
      // the `nodes` check in microseconds.
      def trigger(): Seq[Long] = {
        val cpu = os.getProcessCpuTime
        val began = System.nanoTime()
        val news = hostNews.forTrigger(coordinator, start)
        val heard = System.nanoTime()
        def planned(r: News) = Planner.plan(start, r.files, limits, r.looked)
        writeTimes.observe(news, start, System.currentTimeMillis())
        val (plan, used) = Some(planned(news)).filter(_.end.hosts != start.hosts) match {
          case Some(p) => (p, news)
          case None =>
            val looked = hostNews.forTrigger(coordinator, start, look = true)
            writeTimes.observe(looked, start, System.currentTimeMillis())
            (planned(looked), looked)
        }
        val planning = System.nanoTime()
        SourceMetrics.of(start, used, writeTimes, System.currentTimeMillis())
        // With the JSON Spark writes to the checkpoint's offset log at each trigger.
        val end = snapshots.rebase(start, plan.end.copy(plannedAtMs = Some(1L)))
        val checkpointed = end.json().length.toLong
        Ranges.between(start, end)
        val ended = System.nanoTime()
        val checking = System.nanoTime()
        val read = coverage.update(hosts, coordinator.liveHosts())
        require(read.metrics("nodesUnread") == "0", read.metrics)
        val checked = (System.nanoTime() - checking) / 1000L
        committed = Some(start.json())
        snapshots.forgetUnused()
        start = end
        Seq(ended - began, heard - began, planning - heard, os.getProcessCpuTime - cpu)
          .map(_ / 1000000L) :+ used.files.size.toLong :+ checkpointed :+ checked
      }
      // Bytes of the values under `parent` (one a host), parts included, written after `zxid`.
      def bytesSince(parent: String, zxid: Long): Long = client.getChildren
        .forPath(parent)
        .asScala
        .map { child =>
          val path = s"$parent/$child"
          val parts = client.getChildren.forPath(path).asScala.map(p => s"$path/$p")
          (path +: parts)
            .flatMap(p => Option(client.checkExists().forPath(p)))
            .filter(_.getMzxid > zxid)
            .map(_.getDataLength.toLong)
            .sum
        }
        .sum
      val marker = s"$metaStore/bench-marker"
      ZkClients.ensure(client, marker)
      def zxidNow(): Long = client.setData().forPath(marker, Array[Byte]()).getMzxid
      def exchanged(zxid: Long): Long =
        bytesSince(paths.requests, zxid) + bytesSince(paths.answers, zxid)
      trigger() // every file is new: the nodes' first answers are in full
      var lastZxid = 0L
      val timings = (1 to WarmUpTriggers + Triggers)
        .map { t =>
          (0 until changingNodes).map(c => (t * changingNodes + c) % nodes).foreach { n =>
            (0 until changing).map(c => files(n)((t * changing + c) % perNode)).foreach { file =>
              Files.write(file, s"line $t\n".getBytes(UTF_8), StandardOpenOption.APPEND)
            }
          }
          val (nodesCpu, zkCpu) = (nodesCpuMs(), cpuMs(zk.pid))
          Thread.sleep(TriggerIntervalMs) // a trigger's interval: the news comes meanwhile
          lastZxid = zxidNow()
          trigger() :+ (nodesCpuMs() - nodesCpu) :+ (cpuMs(zk.pid) - zkCpu)
        }
        .drop(WarmUpTriggers)
      val zkBytes = exchanged(lastZxid)
      Thread.sleep(TriggerIntervalMs)
      val idleZxid = zxidNow()
      val idle = trigger()
      val idleBytes = exchanged(idleZxid)
      val laterZxid = zxidNow()
      val laterIdle = trigger()
      val laterIdleBytes = exchanged(laterZxid)
      // As `pyspark-aof status` asks: every node writes its files in full, once.
      val ask = client.setData().forPath(paths.reports, Array[Byte]()).getMzxid
      def reported(host: String): Boolean =
        Option(client.checkExists().forPath(paths.report(host))).exists(_.getMzxid > ask)
      val reportsDue = System.nanoTime() + 120L * 1000 * 1000 * 1000
      while (!hosts.forall(reported)) {
        require(System.nanoTime() < reportsDue, "reports not written")
        Thread.sleep(100) // polling the reports with a deadline
      }
      val reportBytes = bytesSince(paths.reports, 0L)
      val heap = (heapUsed() - heapBefore) / (1 << 20)
      def p50(i: Int) = timings.map(_(i)).sorted.apply(Triggers / 2)
      Figures(
        nodes,
        files.map(_.size).sum,
        changingNodes,
        p50(4),
        p50(0),
        timings.map(_.head).sorted.apply(math.min(Triggers - 1, (Triggers * 95) / 100)),
        p50(1),
        p50(2),
        p50(3),
        p50(7),
        p50(8),
        zkBytes,
        idle.head,
        idleBytes,
        laterIdle.head,
        laterIdleBytes,
        reportBytes,
        timings.map(_(5)).max,
        start.whole.json().length.toLong,
        heap,
        p50(6)
      )
    } finally {
      children.foreach { child =>
        child.getOutputStream.close()
        child.waitFor()
      }
      coordinator.stop()
      client.close()
    }
  }
}
