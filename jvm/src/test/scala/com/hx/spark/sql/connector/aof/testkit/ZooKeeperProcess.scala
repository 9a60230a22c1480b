package com.hx.spark.sql.connector.aof.testkit

import java.net.{InetSocketAddress, ServerSocket, Socket}
import java.nio.file.{Files, Path}

import com.hx.spark.sql.connector.aof.zookeeper.ZkAccess

/**
 * A real ZooKeeper server in a process of its own, from the ZooKeeper JAR on the test classpath:
 * what an "external" ensemble looks like to the source, and something tests can kill.
 */
final class ZooKeeperProcess private (val port: Int, dataDir: Path) {
  private val log = dataDir.resolve("server.log")
  private val process: Process = {
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    new ProcessBuilder(
      java,
      "-Xmx256m",
      "-Dzookeeper.admin.enableServer=false",
      "-cp",
      System.getProperty("java.class.path"),
      "org.apache.zookeeper.server.ZooKeeperServerMain",
      port.toString,
      dataDir.toString
    )
      .redirectErrorStream(true)
      .redirectOutput(log.toFile)
      .start()
  }

  val connectString: String = s"127.0.0.1:$port"
  val access: ZkAccess = ZkAccess(connectString, 30000, None)

  awaitListening()

  def stop(): Unit = {
    process.destroy()
    process.waitFor()
  }

  private def awaitListening(): Unit = {
    val deadline = System.currentTimeMillis() + 30000
    while (!accepts()) {
      if (!process.isAlive || System.currentTimeMillis() > deadline) {
        process.destroyForcibly()
        throw new IllegalStateException(s"ZooKeeper did not start:\n${Files.readString(log)}")
      }
      Thread.sleep(50)
    }
  }

  private def accepts(): Boolean =
    try {
      val socket = new Socket()
      try socket.connect(new InetSocketAddress("127.0.0.1", port), 200)
      finally socket.close()
      true
    } catch { case _: java.io.IOException => false }
}

object ZooKeeperProcess {
  def start(dataDir: Path): ZooKeeperProcess = new ZooKeeperProcess(freePort(), dataDir)

  private def freePort(): Int = {
    val socket = new ServerSocket(0)
    try socket.getLocalPort
    finally socket.close()
  }
}
