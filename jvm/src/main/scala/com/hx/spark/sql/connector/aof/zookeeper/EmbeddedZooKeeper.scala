package com.hx.spark.sql.connector.aof.zookeeper

import java.net.{InetAddress, InetSocketAddress}
import java.nio.file.{Files, Path}
import java.util.Comparator

import org.apache.zookeeper.server.{ServerCnxnFactory, ZooKeeperServer}
import org.apache.zookeeper.server.persistence.FileTxnLog

import com.hx.spark.sql.connector.aof.config.ZooKeeperAuth
import com.hx.spark.sql.connector.aof.protocol.MessageSeal

/**
 * A real ZooKeeper server inside the driver, from the server classes in the ZooKeeper JAR that
 * Spark ships: the default when no `zookeeper.address` is given, so a newcomer installs nothing.
 *
 * It is never open to anyone but the query's own JVMs (design §13). In local mode it listens on
 * loopback, where no other host reaches it. Else, where executors must reach it, it is `secured`:
 * its clients log in with a digest secret made here (`auth`), which the driver hands to its
 * executors in their tasks, and every znode on it is theirs alone ([[ZkClients]]).
 */
final class EmbeddedZooKeeper private (bindHost: String, secured: Boolean) {
  ZooKeeperLogs.quiet
  // ZooKeeper grows its transaction log 64 MB at a time, in the temporary directory: a `tail`
  // or a notebook's query would take that much of /tmp. A few MB hold a fleet's trigger.
  FileTxnLog.setPreallocSize(EmbeddedZooKeeper.LogGrowthBytes)
  private[zookeeper] val dataDir: Path = Files.createTempDirectory("aof-zookeeper-")
  private val server =
    EmbeddedZooKeeper.unsynced(new ZooKeeperServer(dataDir.toFile, dataDir.toFile, 2000))
  private val factory = EmbeddedZooKeeper.keepingDefaultHandler(
    ServerCnxnFactory.createFactory(new InetSocketAddress(bindHost, 0), 1000))
  factory.startup(server)
  // A JVM ended by a signal (SIGTERM to a command's process group) stops no query, so no lease is
  // released: the server's files go all the same.
  private val atExit = new Thread(new Runnable { override def run(): Unit = stop() }, "aof-exit")
  private var stopped = false
  Runtime.getRuntime.addShutdownHook(atExit)

  val connectString: String = s"$bindHost:${factory.getLocalPort}"

  /** The login every client needs, unless only this host can reach the server. */
  val auth: Option[ZooKeeperAuth] =
    if (secured) Some(ZooKeeperAuth(EmbeddedZooKeeper.User, MessageSeal.newKey())) else None

  /**
   * Waits, a few seconds at most, for the clients still connected to close: a stopped query's
   * killed tasks close theirs a moment after the query's stop. Shutting down under them would
   * have each say its connection was lost, with ZooKeeper's stack of the refused reconnection.
   */
  private def awaitClientsGone(): Unit = {
    val deadline = System.nanoTime() + EmbeddedZooKeeper.ClientsGoneNanos
    EmbeddedZooKeeper.awaitingClients = true
    try {
      while (factory.getNumAliveConnections > 0 && System.nanoTime() < deadline) {
        Thread.sleep(20)
      }
    } catch {
      case _: InterruptedException => Thread.currentThread().interrupt() // stops all the same
    } finally EmbeddedZooKeeper.awaitingClients = false
  }

  private def release(): Unit = {
    try Runtime.getRuntime.removeShutdownHook(atExit)
    catch { case _: IllegalStateException => () } // the JVM is exiting: the hook stops it
    stop()
  }

  private def stop(): Unit = synchronized {
    if (!stopped) {
      stopped = true
      factory.shutdown()
      server.shutdown()
      server.getZKDatabase.close() // its log files, which shutdown leaves open
      val walk = Files.walk(dataDir)
      try walk.sorted(Comparator.reverseOrder[Path]()).forEach(p => p.toFile.delete())
      finally walk.close()
    }
  }
}

object EmbeddedZooKeeper {

  /**
   * What `make` returns, the JVM's default uncaught-exception handler left as it was. ZooKeeper's
   * NIO factory makes its own the default as its class loads, and every thread that then dies in
   * the user's driver (Spark's stream execution thread at a stop, say) is logged as an ERROR of
   * ZooKeeper's, with its stack.
   */
  private[zookeeper] def keepingDefaultHandler[T](make: => T): T = {
    val before = Thread.getDefaultUncaughtExceptionHandler
    try make
    finally Thread.setDefaultUncaughtExceptionHandler(before)
  }

  /**
   * What `make` returns, with the transaction log it makes written without an fsync a write.
   * This server's data lives in a temporary directory that goes with the driver and that no
   * other server reads, so a forced write buys nothing, and it cost the driver a disk flush for
   * every request, answer and real-time plan. ZooKeeper reads the documented
   * `zookeeper.forceSync` as it makes a server's log; it is set meanwhile, then put back.
   */
  private[zookeeper] def unsynced[T](make: => T): T = System.getProperties.synchronized {
    val before = Option(System.getProperty(ForceSync))
    System.setProperty(ForceSync, "no")
    try make
    finally before.fold(System.clearProperty(ForceSync))(System.setProperty(ForceSync, _))
  }

  private val ForceSync = "zookeeper.forceSync"
  private[zookeeper] val LogGrowthBytes: Long = 4L << 20
  private val ClientsGoneNanos: Long = 5L * 1000 * 1000 * 1000
  private val User = "aof"

  /** Where the server listens, and whether its clients must log in. */
  final case class Listen(host: String, secured: Boolean)

  /**
   * Where the server of a driver on `driverHost` listens: on loopback, open, when every executor
   * is in the driver's JVM (local mode); else on the driver's address, secured.
   */
  def listen(localMode: Boolean, driverHost: String): Listen =
    if (localMode) Listen(InetAddress.getLoopbackAddress.getHostAddress, secured = false)
    else Listen(driverHost, secured = true)
  @volatile private[zookeeper] var awaitingClients: Boolean = false

  /** One query's use of the JVM's embedded server; the last release stops it. */
  final class Lease private[EmbeddedZooKeeper] (
      val connectString: String,
      val auth: Option[ZooKeeperAuth]) {
    private var released = false

    def release(): Unit = {
      val last = EmbeddedZooKeeper.synchronized {
        val first = !released
        released = true
        if (first) refs -= 1
        if (first && refs == 0) current else None
      }
      // Outside the lock: a query starting meanwhile keeps the server.
      last.foreach(_.awaitClientsGone())
      EmbeddedZooKeeper.synchronized {
        if (last.nonEmpty && refs == 0 && current == last) {
          current.foreach(_.release())
          current = None
        }
      }
    }
  }

  private var current: Option[EmbeddedZooKeeper] = None
  private var refs = 0

  def acquire(bindHost: String, secured: Boolean = false): Lease = synchronized {
    val server = current.getOrElse(new EmbeddedZooKeeper(bindHost, secured))
    current = Some(server)
    refs += 1
    new Lease(server.connectString, server.auth)
  }

  private[zookeeper] def running: Boolean = synchronized(current.nonEmpty)

  private[zookeeper] def dataDir: Option[Path] = synchronized(current.map(_.dataDir))

  private[zookeeper] def server: Option[ZooKeeperServer] = synchronized(current.map(_.server))
}
