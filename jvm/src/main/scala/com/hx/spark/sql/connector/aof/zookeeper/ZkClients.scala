package com.hx.spark.sql.connector.aof.zookeeper

import java.io.IOException
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.{List => JList}
import java.util.concurrent.TimeUnit

import scala.collection.JavaConverters._

import org.apache.curator.framework.{CuratorFramework, CuratorFrameworkFactory}
import org.apache.curator.framework.api.ACLProvider
import org.apache.curator.retry.ExponentialBackoffRetry
import org.apache.curator.utils.ZookeeperFactory
import org.apache.zookeeper.{ClientCnxnSocketNetty, KeeperException, Watcher, ZooDefs, ZooKeeper}
import org.apache.zookeeper.client.{ConnectStringParser, ZKClientConfig}
import org.apache.zookeeper.data.ACL

object ZkClients {
  private val ConnectWaitSeconds = 20

  /**
   * Znodes under `root` can be read and changed only by the digest user that made them; parents
   * above it stay open, since other queries with other users keep their own roots beside it.
   */
  private final class CreatorOnlyUnder(root: String) extends ACLProvider {
    override def getDefaultAcl: JList[ACL] = ZooDefs.Ids.CREATOR_ALL_ACL
    override def getAclForPath(path: String): JList[ACL] =
      if (path == root || path.startsWith(root + "/")) ZooDefs.Ids.CREATOR_ALL_ACL
      else ZooDefs.Ids.OPEN_ACL_UNSAFE
  }

  /**
   * Clients on ZooKeeper's Netty socket. Closing a client on the default NIO socket takes 100 ms
   * (measured with ZooKeeper 3.6 against a local server): at every query stop, once for the
   * driver and once for each endpoint. The Netty socket closes in a few milliseconds.
   */
  private object NettyClients extends ZookeeperFactory {
    override def newZooKeeper(
        connectString: String,
        sessionTimeout: Int,
        watcher: Watcher,
        canBeReadOnly: Boolean): ZooKeeper = {
      val config = new ZKClientConfig()
      config.setProperty(
        ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET,
        classOf[ClientCnxnSocketNetty].getName)
      new ZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, config)
    }
  }

  /**
   * A started client, connected, or a clear error naming the option to check.
   *
   * @param metaStore the source's root: with credentials, every znode made under it gets ACLs
   */
  def open(access: ZkAccess, metaStore: String): CuratorFramework = {
    // The embedded server is up, and logs a stack trace for each connection closed unspoken.
    if (!access.embedded) awaitListening(access.connectString)
    val builder = CuratorFrameworkFactory
      .builder()
      .connectString(access.connectString)
      .zookeeperFactory(NettyClients)
      .retryPolicy(new ExponentialBackoffRetry(100, 5, 1000))
      .sessionTimeoutMs(access.sessionTimeoutMs)
      .connectionTimeoutMs(math.min(access.sessionTimeoutMs, 10000))
      .defaultData(Array.emptyByteArray) // not this host's address in every parent znode
    access.auth.foreach { a =>
      builder.authorization("digest", s"${a.user}:${a.password}".getBytes(UTF_8))
      builder.aclProvider(new CreatorOnlyUnder(metaStore))
    }
    ZooKeeperLogs.quiet
    val client = builder.build()
    client.getConnectionStateListenable.addListener(
      ZooKeeperLogs.connectionStates(access.connectString))
    client.start()
    if (!client.blockUntilConnected(ConnectWaitSeconds, TimeUnit.SECONDS)) {
      client.close()
      throw unreachable(access.connectString)
    }
    client
  }

  private def unreachable(connectString: String): IllegalStateException =
    new IllegalStateException(
      s"aof: cannot reach ZooKeeper at '$connectString' within $ConnectWaitSeconds s; check " +
        "the option 'zookeeper.address', or leave it unset to use the embedded server.")

  /**
   * Waits until a server of `connectString` accepts connections. ZooKeeper's client logs a
   * warning with a stack trace at every failed attempt, some 300 lines before a client gives up
   * on an address where nothing listens: a plain socket says the same in silence.
   */
  private def awaitListening(connectString: String): Unit = {
    // Its form was checked with the options; the parser is ZooKeeper's own.
    val servers = new ConnectStringParser(connectString).getServerAddresses.asScala.toList
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ConnectWaitSeconds)
    def listening(server: InetSocketAddress): Boolean = {
      val socket = new Socket()
      try {
        val resolved = new InetSocketAddress(server.getHostString, server.getPort)
        socket.connect(resolved, 1000)
        true
      } catch { case _: IOException => false }
      finally socket.close()
    }
    while (!servers.exists(listening)) {
      if (System.nanoTime() > deadline) throw unreachable(connectString)
      Thread.sleep(200)
    }
  }

  /**
   * Restricts existing znodes (made before credentials were set) to the client's digest user.
   *
   * @throws IllegalStateException naming the option when another user owns one of them
   */
  def restrict(client: CuratorFramework, paths: Seq[String]): Unit = paths.foreach { path =>
    try client.setACL().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath(path)
    catch {
      case _: KeeperException.NoNodeException => ()
      case _: KeeperException.NoAuthException =>
        throw new IllegalStateException(
          s"aof: the znode $path belongs to another ZooKeeper user; use that user's " +
            "'zookeeper.auth.user' and 'zookeeper.auth.password', or another 'meta.store'.")
    }
  }

  def ensure(client: CuratorFramework, path: String): Unit =
    try client.create().creatingParentsIfNeeded().forPath(path)
    catch { case _: KeeperException.NodeExistsException => () }
}
