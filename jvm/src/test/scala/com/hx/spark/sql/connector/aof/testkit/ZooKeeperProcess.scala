package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}

import scala.annotation.tailrec

import com.hx.spark.sql.connector.aof.zookeeper.ZkAccess

/**
 * A real ZooKeeper server in a process of its own, from the ZooKeeper JAR on the test classpath:
 * what an "external" ensemble looks like to the source, and something tests can kill.
 *
 * @param settings the server JVM's system properties (TLS stores, SASL providers, JAAS)
 * @param secure   whether its one port is a `secureClientPort` (TLS on Netty), not a plain one
 * @param heapMb   the server JVM's heap
 */
final class ZooKeeperProcess private (
    dataDir: Path,
    settings: Map[String, String],
    secure: Boolean,
    heapMb: Int) {
  private val log = dataDir.resolve("server.log")
  private val process: Process = {
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val command = Seq(
      java,
      s"-Xmx${heapMb}m",
      "-Dzookeeper.admin.enableServer=false",
      "-Dzookeeper.forceSync=no" // a test server: no fsync waits on a busy disk
    ) ++ settings.map { case (k, v) => s"-D$k=$v" } ++ Seq(
      "-cp",
      System.getProperty("java.class.path"),
      ZooKeeperProcessMain.getClass.getName.stripSuffix("$"),
      dataDir.toString,
      if (secure) "secure" else "plain"
    )
    new ProcessBuilder(command: _*)
      .redirectErrorStream(true)
      .redirectOutput(log.toFile)
      .start()
  }

  /** The port the server bound, from its "serving" line. */
  val port: Int = awaitServing()
  val connectString: String = s"127.0.0.1:$port"
  val access: ZkAccess = ZkAccess(connectString, 30000)

  /** The server's process id, for what it costs. */
  def pid: Long = process.pid()

  /** What the server logged so far. */
  def output: String = Files.readString(log)

  def stop(): Unit = {
    process.destroy()
    process.waitFor()
  }

  @tailrec
  private def awaitServing(deadline: Long = System.currentTimeMillis() + 30000): Int = {
    val ready = s"${ZooKeeperProcessMain.Ready} "
    output.linesIterator.collectFirst {
      case line if line.startsWith(ready) => line.stripPrefix(ready).trim.toInt
    } match {
      case Some(port) => port
      case None if process.isAlive && System.currentTimeMillis() < deadline =>
        Thread.sleep(50)
        awaitServing(deadline)
      case None =>
        process.destroyForcibly()
        throw new IllegalStateException(s"ZooKeeper did not start:\n$output")
    }
  }
}

object ZooKeeperProcess {
  def start(
      dataDir: Path,
      settings: Map[String, String] = Map.empty,
      secure: Boolean = false,
      heapMb: Int = 256): ZooKeeperProcess =
    new ZooKeeperProcess(dataDir, settings, secure, heapMb)
}
