package com.hx.spark.sql.connector.aof.bench

import java.io.{BufferedReader, InputStreamReader}
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.util.UUID

import scala.collection.JavaConverters._

import org.apache.hadoop.conf.Configuration

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.driver.{Coordinator, ExpectedNodes, NodeCoverage, UnreadNodes}
import com.hx.spark.sql.connector.aof.files.FileIdentity
import com.hx.spark.sql.connector.aof.offset.{AofOffset, OffsetSnapshots}
import com.hx.spark.sql.connector.aof.plan.{PlanLimits, Planner}
import com.hx.spark.sql.connector.aof.protocol.{MessageSeal, ZkPaths}
import com.hx.spark.sql.connector.aof.testkit.ZooKeeperProcess
import com.hx.spark.sql.connector.aof.zookeeper.ZkClients

/**
 * The driver's planning at fleet size: a real ZooKeeper server, the real coordinator and planner
 * in this JVM (so its heap is the driver's), and the real endpoint code for every simulated node
 * in child JVMs ([[FleetNodes]]), each node with `FilesPerNode` files of its own (or as many as
 * an argument `<nodes>x<files>` says). Every trigger appends a line to one file in a thousand (at
 * least one) on every node, asks every node and plans, as a streaming trigger does.
 *
 * All nodes share this machine's cores, where a fleet's nodes answer in parallel: the time to
 * gather answers here is an upper bound of a real fleet's. Writes a Markdown table.
 *
 * `build/sbt "aof/Test/runMain com.hx.spark.sql.connector.aof.bench.FleetPlanning <out.md> 10
 * 100 1x10000"`
 */
object FleetPlanning {
  val FileNames: String = "app-.*\\.log"
  val NodesReady: String = "nodes serving"
  private val FilesPerNode = 100
  // One file in a thousand written to at each trigger, at least one a node.
  private val ChangingPerMille = 1
  private val NodesPerJvm = 250
  private val Triggers = 20
  // Not measured: an endpoint lives as long as its query, so its code runs compiled; the first
  // triggers of a JVM that just started run it interpreted, and compile it. After 10 triggers
  // the JIT still took 13% of the nodes' CPU (per-answer code runs once a node a trigger, under
  // C2's thresholds); after 40, 4%.
  private val WarmUpTriggers = 40

  final case class Figures(
      nodes: Int,
      files: Int,
      changing: Int,
      p50Ms: Long,
      p95Ms: Long,
      askP50Ms: Long,
      answersP50Ms: Long,
      planP50Ms: Long,
      driverCpuMs: Long,
      nodesCpuMs: Long,
      zkCpuMs: Long,
      zkBytes: Long,
      reportBytes: Long,
      offsetBytes: Long,
      wholeBytes: Long,
      heapMb: Long,
      nodesP50Us: Long)

  def main(args: Array[String]): Unit = {
    val out = Paths.get(args.head)
    val root = Files.createTempDirectory("aof-fleet-")
    val zk = ZooKeeperProcess.start(Files.createDirectory(root.resolve("zk")))
    try {
      val figures = args.tail.map { arg =>
        val Array(nodes, perNode) =
          (arg + s"x$FilesPerNode").split('x').take(2).map(_.toInt): @unchecked
        measure(zk, root.resolve(s"fleet-$arg"), nodes, perNode)
      }
      val header =
        "# Planning at fleet size\n\nWritten by `make bench-fleet` (`FleetPlanning`); do not " +
          s"edit by hand. $Triggers triggers measured after $WarmUpTriggers (the nodes' code " +
          "compiled, as a running query's is), each appending a line to the " +
          "files changed a trigger on every node (one in a thousand, at least one); " +
          s"${Runtime.getRuntime.availableProcessors} cores shared by the driver, every node " +
          "and ZooKeeper. Times are p50 over the triggers; ZooKeeper bytes are the last " +
          "trigger's requests and answers; a `status` makes every node write its files in " +
          "full (then each change, at most once a second, for a minute), measured once after " +
          "the triggers. The last column is what the option `nodes`, listing every node, adds " +
          "to a trigger's driver: telling which of them no endpoint serves, and its metrics.\n\n"
      Files.write(out, (header + table(figures.toSeq)).getBytes(UTF_8))
      print(table(figures.toSeq))
    } finally zk.stop()
  }

  private def table(figures: Seq[Figures]): String =
    ("| nodes | files | changed a trigger | trigger p50 (ms) | p95 (ms) | asking p50 (ms) | " +
      "answers p50 (ms) | planner p50 (ms) | driver CPU p50 (ms) | all nodes' CPU p50 (ms) | " +
      "ZooKeeper CPU p50 (ms) | ZooKeeper bytes a trigger | a `status`: reports, bytes | checkpoint offset bytes, most a trigger (a file) | " +
      "offsets whole, bytes (a file) | driver heap (MB) | `nodes` p50 (ms) |\n" +
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n") +
      figures.map { f =>
        s"| ${f.nodes} | ${f.files} | ${f.changing} | ${f.p50Ms} | ${f.p95Ms} | ${f.askP50Ms} | " +
          s"${f.answersP50Ms} | ${f.planP50Ms} | ${f.driverCpuMs} | ${f.nodesCpuMs} | " +
          s"${f.zkCpuMs} | ${f.zkBytes} | ${f.reportBytes} | ${f.offsetBytes} (${f.offsetBytes / f.files}) | ${f.wholeBytes} " +
          s"(${f.wholeBytes / f.files}) | ${f.heapMb} | ${f.nodesP50Us / 1000.0} |\n"
      }.mkString

  private def heapUsed(): Long = {
    (1 to 3).foreach(_ => System.gc())
    ManagementFactory.getMemoryMXBean.getHeapMemoryUsage.getUsed
  }

  private def measure(zk: ZooKeeperProcess, root: Path, nodes: Int, perNode: Int): Figures = {
    val changing = math.max(1, perNode * ChangingPerMille / 1000)
    val files = (0 until nodes).flatMap { i =>
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
      new ProcessBuilder(
        (Seq(java, "-Xmx1g", "-Xss512k", "-cp", System.getProperty("java.class.path")) ++
          Seq(FleetNodes.getClass.getName.stripSuffix("$")) ++ args :+ count): _*)
        .redirectErrorStream(true)
        .start()
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
      val deadline = System.nanoTime() + 300L * 1000 * 1000 * 1000
      while (coordinator.liveHosts() != hosts) {
        require(System.nanoTime() < deadline, s"${coordinator.liveHosts().size} nodes serve")
        Thread.sleep(100) // polling the registry with a deadline
      }
      val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))
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
      // CPU milliseconds of this JVM, and of other processes (from /proc: clock ticks of 10 ms).
      val os = ManagementFactory.getOperatingSystemMXBean
        .asInstanceOf[com.sun.management.OperatingSystemMXBean]
      def cpuMs(pid: Long): Long = {
        val stat = new String(Files.readAllBytes(Paths.get(s"/proc/$pid/stat")), UTF_8)
        val fields = stat.substring(stat.lastIndexOf(')') + 2).split(' ')
        (fields(11).toLong + fields(12).toLong) * 10L // utime and stime
      }
      def nodesCpuMs(): Long = children.map(child => cpuMs(child.pid())).sum
      // Milliseconds in all, asking, gathering the answers and planning; CPU of driver, nodes,
      // ZooKeeper.
      def trigger(): Seq[Long] = {
        val (cpu, nodesCpu, zkCpu) = (os.getProcessCpuTime, nodesCpuMs(), cpuMs(zk.pid))
        val began = System.nanoTime()
        val asked = coordinator.ask(hosts.map(h => h -> Planner.known(start, h)).toMap)
        val sent = System.nanoTime()
        val answers = coordinator.answers(asked, 120000L)
        require(answers.files.size == nodes, s"${answers.files.size} of $nodes nodes answered")
        val live = coordinator.liveHosts() // the driver knows them anyway (`HostCensus`)
        val checking = System.nanoTime()
        val read = coverage.update(hosts, live)
        require(read.metrics("nodesUnread") == "0", read.metrics)
        val checked = (System.nanoTime() - checking) / 1000L
        val planning = System.nanoTime()
        // With the JSON Spark writes to the checkpoint's offset log at each trigger.
        val end = snapshots.rebase(start, Planner.plan(start, answers.files, limits).end)
        val checkpointed = end.json().length.toLong
        val ended = System.nanoTime()
        committed = Some(start.json())
        snapshots.forgetUnused()
        start = end
        Seq(
          ended - began,
          sent - began,
          planning - sent,
          ended - planning,
          os.getProcessCpuTime - cpu)
          .map(_ / 1000000L) :+ (nodesCpuMs() - nodesCpu) :+ checkpointed :+
          (cpuMs(zk.pid) - zkCpu) :+ checked
      }
      trigger() // every file is new: the nodes' first answers are in full
      val timings = (1 to WarmUpTriggers + Triggers)
        .map { t =>
          files.grouped(perNode).foreach { node =>
            (0 until changing).map(c => node((t * changing + c) % perNode)).foreach { file =>
              Files.write(file, s"line $t\n".getBytes(UTF_8), StandardOpenOption.APPEND)
            }
          }
          trigger()
        }
        .drop(WarmUpTriggers)
      // Bytes of every value under `parent` (one a host), parts included.
      def bytesUnder(parent: String): Long = client.getChildren
        .forPath(parent)
        .asScala
        .map { child =>
          val path = s"$parent/$child"
          val parts = client.getChildren.forPath(path).asScala.map(p => s"$path/$p")
          (path +: parts).map(client.checkExists().forPath(_).getDataLength.toLong).sum
        }
        .sum
      val zkBytes = bytesUnder(paths.requests) + bytesUnder(paths.responses)
      // As `pyspark-aof status` asks: every node writes its files in full, once.
      val ask = client.setData().forPath(paths.reports, Array[Byte]()).getMzxid
      def reported(host: String): Boolean =
        Option(client.checkExists().forPath(paths.report(host))).exists(_.getMzxid > ask)
      val reportsDue = System.nanoTime() + 60L * 1000 * 1000 * 1000
      while (!hosts.forall(reported)) {
        require(System.nanoTime() < reportsDue, "reports not written")
        Thread.sleep(100) // polling the reports with a deadline
      }
      val reportBytes = bytesUnder(paths.reports)
      val heap = (heapUsed() - heapBefore) / (1 << 20)
      def p50(i: Int) = timings.map(_(i)).sorted.apply(Triggers / 2)
      Figures(
        nodes,
        files.size,
        nodes * changing,
        p50(0),
        timings.map(_.head).sorted.apply(math.min(Triggers - 1, (Triggers * 95) / 100)),
        p50(1),
        p50(2),
        p50(3),
        p50(4),
        p50(5),
        p50(7),
        zkBytes,
        reportBytes,
        timings.map(_(6)).max,
        start.whole.json().length.toLong,
        heap,
        p50(8)
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
