package com.hx.spark.sql.connector.aof.zookeeper

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.state.{ConnectionState, ConnectionStateListener}
import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.LoggerContext
import org.apache.logging.log4j.core.config.Configurator
import org.slf4j.LoggerFactory

/**
 * What ZooKeeper's own classes log, in the source's words.
 *
 * ZooKeeper 3.6 (the one Spark 3 ships) logs a warning with a stack trace whenever a session is
 * closed in the usual way but its socket goes a moment before the close is acknowledged: on the
 * client ("An exception was thrown while closing send thread") and on the embedded server
 * ("Unable to read additional data from client"). That happens at most query stops, on the
 * driver and on every executor, and means nothing. The embedded server's factory warns at every
 * start that `zookeeper.maxCnxns` is not set (unset means no limit, what a server inside the
 * driver wants). The client's Netty socket warns with a stack trace at each refused attempt to
 * connect: a task's client opening as its query stops, and the server with it. Those four
 * loggers go to ERROR, unless the user's log configuration names them; a connection really lost
 * or regained is said instead in one line by `connectionStates`, a server never reached by the
 * error `ZkClients.open` raises.
 */
private[aof] object ZooKeeperLogs {
  private val log = LoggerFactory.getLogger(getClass)

  private[zookeeper] val Quieted: Seq[String] =
    Seq(
      "org.apache.zookeeper.ClientCnxn",
      "org.apache.zookeeper.server.NIOServerCnxn",
      "org.apache.zookeeper.server.ServerCnxnFactory",
      "org.apache.zookeeper.ClientCnxnSocketNetty"
    )

  /** Sets the quieted loggers' levels once per JVM. */
  lazy val quiet: Unit =
    try {
      LogManager.getContext(false) match {
        case context: LoggerContext =>
          val named = context.getConfiguration.getLoggers.keySet.asScala
          Quieted.filterNot(named.contains).foreach(Configurator.setLevel(_, Level.ERROR))
        case _ => () // another logging backend than Spark's: its configuration is the user's
      }
    } catch { case _: LinkageError => () }

  /** One line when a client's connection is suspended, lost or back. */
  def connectionStates(connectString: String): ConnectionStateListener =
    new ConnectionStateListener {
      override def stateChanged(client: CuratorFramework, state: ConnectionState): Unit =
        state match {
          case ConnectionState.SUSPENDED | ConnectionState.LOST =>
            log.warn(s"aof: connection to ZooKeeper at '$connectString' $state; retrying")
          case ConnectionState.RECONNECTED =>
            log.info(s"aof: connection to ZooKeeper at '$connectString' back")
          case _ => ()
        }
    }
}
