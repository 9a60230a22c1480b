package com.hx.spark.sql.connector.aof.testkit

import java.io.File
import java.net.InetSocketAddress

import org.apache.zookeeper.server.{NettyServerCnxnFactory, ServerCnxnFactory, ZooKeeperServer}

/**
 * The main of a `ZooKeeperProcess`: a standalone server that prints "serving <port>" once it
 * serves, on a plain port or a secure one. It binds a port the system picks: a port picked by the
 * parent and freed for the child to bind could be taken by another test run in between.
 * ZooKeeper's own `ZooKeeperServerMain` accepts connections before its database is loaded and
 * answers them "not running"; a client that came that early (a readiness probe, the suite's
 * first client) sometimes found the server unusable for the next 20 s (NPEs in its connection
 * cleanup, logged by the server). Waiting for this line, nothing connects before it serves.
 */
object ZooKeeperProcessMain {
  val Ready: String = "serving"

  def main(args: Array[String]): Unit = {
    val Array(dataDir, kind) = args
    val secure = kind == "secure"
    // TLS needs the Netty factory; its stores come from the system properties.
    if (secure)
      System.setProperty("zookeeper.serverCnxnFactory", classOf[NettyServerCnxnFactory].getName)
    val server = new ZooKeeperServer(new File(dataDir), new File(dataDir), 2000)
    val factory = ServerCnxnFactory.createFactory()
    factory.configure(new InetSocketAddress("127.0.0.1", 0), 0, -1, secure)
    factory.startup(server)
    println(s"$Ready ${factory.getLocalPort}")
    System.out.flush()
    factory.join()
  }
}
