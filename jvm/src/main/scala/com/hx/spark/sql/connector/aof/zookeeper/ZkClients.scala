package com.hx.spark.sql.connector.aof.zookeeper

import java.io.IOException
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.{List => JList}
import java.util.concurrent.TimeUnit
import javax.net.ssl.SSLContext

import scala.collection.JavaConverters._

import org.apache.curator.framework.{CuratorFramework, CuratorFrameworkFactory}
import org.apache.curator.framework.api.ACLProvider
import org.apache.curator.retry.ExponentialBackoffRetry
import org.apache.curator.utils.ZookeeperFactory
import org.apache.zookeeper.{ClientCnxnSocketNetty, KeeperException, Watcher, ZooDefs, ZooKeeper}
import org.apache.zookeeper.client.{ConnectStringParser, ZKClientConfig}
import org.apache.zookeeper.data.ACL

import com.hx.spark.sql.connector.aof.config.{ZooKeeperSecurity, ZooKeeperTls}

object ZkClients {

  /**
   * Znodes under `root` can be read and changed only by the identities that made them (digest
   * user, SASL login: ZooKeeper's `auth` scheme); parents above it stay open, since other
   * queries with other users keep their own roots beside it. An empty root is every znode.
   */
  private final class CreatorOnlyUnder(root: String) extends ACLProvider {
    override def getDefaultAcl: JList[ACL] = ZooDefs.Ids.CREATOR_ALL_ACL
    override def getAclForPath(path: String): JList[ACL] =
      if (path == root || path.startsWith(root + "/")) ZooDefs.Ids.CREATOR_ALL_ACL
      else ZooDefs.Ids.OPEN_ACL_UNSAFE
  }

  /**
   * Clients on ZooKeeper's Netty socket, with the query's TLS and SASL properties. Closing a
   * client on the default NIO socket takes 100 ms (measured with ZooKeeper 3.6 against a local
   * server): at every query stop, once for the driver and once for each endpoint. The Netty
   * socket closes in a few milliseconds, and it is the one ZooKeeper's TLS needs.
   */
  private final class NettyClients(properties: Map[String, String]) extends ZookeeperFactory {
    override def newZooKeeper(
        connectString: String,
        sessionTimeout: Int,
        watcher: Watcher,
        canBeReadOnly: Boolean): ZooKeeper =
      new ZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, config(properties))
  }

  private def config(properties: Map[String, String]): ZKClientConfig = {
    val config = new ZKClientConfig()
    config.setProperty(
      ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET,
      classOf[ClientCnxnSocketNetty].getName)
    properties.foreach { case (k, v) => config.setProperty(k, v) }
    config
  }

  /**
   * A started client, connected and let in, or a clear error naming the option to check.
   *
   * @param metaStore the source's root: with credentials, every znode made under it gets ACLs
   */
  def open(access: ZkAccess, metaStore: String): CuratorFramework = {
    val security = access.security
    val properties = security.tls.map(ClientTls.properties).getOrElse(Map.empty) ++
      security.sasl.map(ClientSasl.properties).getOrElse(Map.empty)
    val tls = security.tls.map(t => t -> ClientTls.context(t, config(properties)))
    // The embedded server is up, and logs a stack trace for each connection closed unspoken.
    if (!access.embedded) awaitListening(access, tls)
    val builder = CuratorFrameworkFactory
      .builder()
      .connectString(access.connectString)
      .zookeeperFactory(new NettyClients(properties))
      .retryPolicy(new ExponentialBackoffRetry(100, 5, 1000))
      .sessionTimeoutMs(access.sessionTimeoutMs)
      .connectionTimeoutMs(math.min(access.sessionTimeoutMs, 10000))
      .defaultData(Array.emptyByteArray) // not this host's address in every parent znode
    security.digest.foreach { a =>
      builder.authorization("digest", s"${a.user}:${a.password}".getBytes(UTF_8))
    }
    // The embedded server is the query's alone: every znode on it is.
    if (security.authenticated) {
      builder.aclProvider(new CreatorOnlyUnder(if (access.embedded) "" else metaStore))
    }
    ZooKeeperLogs.quiet
    val client = builder.build()
    client.getConnectionStateListenable.addListener(
      ZooKeeperLogs.connectionStates(access.connectString))
    client.start()
    try {
      if (!connected(client, access, tls.isEmpty)) {
        throw tls
          .flatMap { case (t, context) =>
            refusals(access.connectString, t, context, readWait = 3000).headOption
          }
          .getOrElse(unreachable(access))
      }
      if (!access.embedded) awaitLetIn(client, access)
    } catch {
      case e: Throwable =>
        client.close()
        throw e
    }
    client
  }

  /**
   * Gives the server's root to the identity `client` logged in as: no one else makes a znode on
   * it, or lists it. The embedded server's driver does so, once.
   */
  def lockRoot(client: CuratorFramework): Unit =
    client.setACL().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath("/")

  /**
   * Waits for an answer to a first request: the client's SASL login, if any, is done by then,
   * and a server that lets no one in without one says so.
   */
  private def awaitLetIn(client: CuratorFramework, access: ZkAccess): Unit =
    try client.checkExists().forPath("/")
    catch {
      case e: KeeperException
          if e.code == KeeperException.Code.AUTHFAILED || e.code.intValue == -124 =>
        // -124: SESSIONCLOSEDREQUIRESASLAUTH, which ZooKeeper 3.6 has and 3.9 names otherwise.
        val options = access.security.sasl.fold(
          "it requires SASL: set 'zookeeper.sasl.user' or 'zookeeper.sasl.kerberos.principal' " +
            "or 'zookeeper.sasl.section'")(s =>
          "check the options " + s.options.map(o => s"'$o'").mkString(" and "))
        throw new IllegalArgumentException(
          s"aof: ZooKeeper at '${access.connectString}' refused this client's login " +
            s"(${e.code}); $options.")
    }

  /**
   * Whether the client connects within the wait. A client without TLS that a server let connect
   * but has not let in after a few seconds may be at a port that listens for TLS only: it fails
   * then, saying so, rather than at the end of the wait with no word of TLS.
   */
  private def connected(client: CuratorFramework, access: ZkAccess, plain: Boolean): Boolean = {
    val first = math.min(TlsProbeAfterSeconds, access.connectWaitSeconds)
    client.blockUntilConnected(first, TimeUnit.SECONDS) || {
      if (plain && !access.embedded) {
        servers(access.connectString).find(ClientTls.speaksTls).foreach { server =>
          throw new IllegalArgumentException(
            s"aof: ZooKeeper at '${access.connectString}' let this client connect and closed " +
              s"the connection: ${server.getHostString}:${server.getPort} listens for TLS (a " +
              "secureClientPort). Set 'zookeeper.ssl.truststore.location' (and " +
              "'zookeeper.ssl.keystore.location' when it asks for client certificates), or " +
              "name its plain clientPort in 'zookeeper.address'.")
        }
      }
      client.blockUntilConnected(access.connectWaitSeconds - first, TimeUnit.SECONDS)
    }
  }

  private val TlsProbeAfterSeconds = 3

  private def unreachable(access: ZkAccess): IllegalStateException =
    new IllegalStateException(
      s"aof: cannot reach ZooKeeper at '${access.connectString}' within " +
        s"${access.connectWaitSeconds} s; check the option 'zookeeper.address', or leave it " +
        "unset to use the embedded server.")

  /**
   * Waits until a server of `connectString` accepts connections (and, with TLS, this client).
   * ZooKeeper's client logs a warning with a stack trace at every failed attempt, some 300 lines
   * before a client gives up on an address where nothing listens, and it retries a handshake
   * that can never pass: a socket of its own says the same in silence, and says why.
   */
  private def awaitListening(access: ZkAccess, tls: Option[(ZooKeeperTls, SSLContext)]): Unit = {
    val connectString = access.connectString
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(access.connectWaitSeconds)
    def listening(server: InetSocketAddress): Boolean = {
      val socket = new Socket()
      try {
        socket.connect(server, 1000)
        true
      } catch { case _: IOException => false }
      finally socket.close()
    }
    def ready: Boolean = tls match {
      case None => servers(connectString).exists(listening)
      case Some((t, context)) =>
        // Up to the first server that accepts: each acceptance waits for a late alert.
        val (before, accepted) = servers(connectString).iterator
          .map(ClientTls.handshake(context, t, _, 250))
          .span(_ != ClientTls.Accepted)
        val found = before.toList
        accepted.hasNext || {
          refused(connectString, found).foreach(e => throw e)
          false
        }
    }
    while (!ready) {
      if (System.nanoTime() > deadline) throw unreachable(access)
      Thread.sleep(200)
    }
  }

  // Its form was checked with the options; the parser is ZooKeeper's own.
  private def servers(connectString: String): Seq[InetSocketAddress] =
    new ConnectStringParser(connectString).getServerAddresses.asScala.toList.map { server =>
      new InetSocketAddress(server.getHostString, server.getPort)
    }

  private def refusals(
      connectString: String,
      tls: ZooKeeperTls,
      context: SSLContext,
      readWait: Int): Option[IllegalArgumentException] =
    refused(
      connectString,
      servers(connectString).map(ClientTls.handshake(context, tls, _, readWait)))

  private def refused(
      connectString: String,
      found: Seq[ClientTls.Handshake]): Option[IllegalArgumentException] =
    found.collectFirst { case ClientTls.Refused(reason) =>
      new IllegalArgumentException(s"aof: ZooKeeper at '$connectString' over TLS: $reason.")
    }

  /**
   * Restricts existing znodes (made before credentials were set) to the client's identities.
   * Returns those anyone could write until then: what they hold may be anyone's.
   *
   * @throws IllegalStateException naming the option when another user owns one of them
   */
  def restrict(
      client: CuratorFramework,
      paths: Seq[String],
      security: ZooKeeperSecurity): Seq[String] =
    paths.filter { path =>
      try {
        val open = client.getACL.forPath(path).asScala.exists { acl =>
          acl.getId == ZooDefs.Ids.ANYONE_ID_UNSAFE && (acl.getPerms & ZooDefs.Perms.WRITE) != 0
        }
        client.setACL().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath(path)
        open
      } catch {
        case _: KeeperException.NoNodeException => false
        case _: KeeperException.NoAuthException =>
          val options = security.identityOptions.map(o => s"'$o'").mkString(", ")
          throw new IllegalStateException(
            s"aof: the znode $path belongs to another ZooKeeper identity than this client's " +
              s"($options); log in as its owner, or use another 'meta.store'.")
      }
    }

  def ensure(client: CuratorFramework, path: String): Unit =
    try client.create().creatingParentsIfNeeded().forPath(path)
    catch { case _: KeeperException.NodeExistsException => () }
}
