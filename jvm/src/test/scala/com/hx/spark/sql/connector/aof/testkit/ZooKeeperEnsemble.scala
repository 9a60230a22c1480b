package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}

/**
 * A ZooKeeper ensemble of three servers (`QuorumPeerMain`), each in a process of its own, each
 * on a `secureClientPort` (TLS, on Netty) when `secure`: what production runs, and something
 * tests can kill a server of (the leader, say).
 *
 * @param settings the servers' JVM system properties (TLS stores)
 */
final class ZooKeeperEnsemble(dir: Path, settings: Map[String, String], secure: Boolean) {
  private val ids = Seq(1, 2, 3)
  // Client, quorum and election ports of each.
  private val ports = ids.map(id => id -> Seq.fill(3)(FreePorts.next())).toMap
  private val logging = Files.writeString(
    dir.resolve("log4j2.properties"),
    Seq(
      "rootLogger.level = warn",
      "rootLogger.appenderRef.out.ref = out",
      "appender.out.type = Console",
      "appender.out.name = out",
      "appender.out.layout.type = PatternLayout",
      "appender.out.layout.pattern = %m%n",
      // Its state, one word a line: LOOKING, FOLLOWING, LEADING.
      "logger.peer.name = org.apache.zookeeper.server.quorum.QuorumPeer",
      "logger.peer.level = info"
    ).mkString("", "\n", "\n")
  )
  private var processes: Map[Int, Process] = ids.map(id => id -> launch(id)).toMap

  val connectString: String = ids.map(id => s"127.0.0.1:${ports(id).head}").mkString(",")

  Polling.eventually("the ensemble to elect a leader", 60000)(leader.nonEmpty)

  private def log(id: Int): Path = dir.resolve(s"server-$id.log")

  private def launch(id: Int): Process = {
    val data = Files.createDirectories(dir.resolve(s"data-$id"))
    Files.writeString(data.resolve("myid"), s"$id\n")
    val client =
      if (secure) {
        s"secureClientPort=${ports(id).head}\nsecureClientPortAddress=127.0.0.1\n" +
          "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"
      } else s"clientPort=${ports(id).head}\nclientPortAddress=127.0.0.1\n"
    // A follower slower than syncLimit ticks to answer leaves the quorum. With two servers left
    // of three, that ends service for an election: 20 s, so that a loaded machine does not.
    val config = Files.writeString(
      dir.resolve(s"zoo-$id.cfg"),
      "tickTime=500\ninitLimit=40\nsyncLimit=40\nadmin.enableServer=false\n" +
        s"dataDir=$data\n$client" +
        ids.map(i => s"server.$i=127.0.0.1:${ports(i)(1)}:${ports(i)(2)}\n").mkString
    )
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val command = Seq(java, "-Xmx256m", s"-Dlog4j2.configurationFile=$logging") ++
      (settings + ("zookeeper.forceSync" -> "no")).map { case (k, v) => s"-D$k=$v" } ++
      Seq(
        "-cp",
        System.getProperty("java.class.path"),
        "org.apache.zookeeper.server.quorum.QuorumPeerMain",
        config.toString)
    new ProcessBuilder(command: _*)
      .redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.appendTo(log(id).toFile))
      .start()
  }

  /** The server that leads now, if one does: the last state each running server logged. */
  def leader: Option[Int] = processes.collect {
    case (id, p) if p.isAlive && lastState(id).contains("LEADING") => id
  }.headOption

  private def lastState(id: Int): Option[String] =
    if (!Files.exists(log(id))) None
    else {
      val states = Set("LOOKING", "FOLLOWING", "LEADING")
      Files.readAllLines(log(id)).toArray.map(_.toString.trim).filter(states).lastOption
    }

  /** Kills a server at once, as a crash would. */
  def kill(id: Int): Unit = {
    processes(id).destroyForcibly()
    processes(id).waitFor()
    processes -= id
  }

  def stop(): Unit = processes.values.foreach { p =>
    p.destroyForcibly()
    p.waitFor()
  }
}
