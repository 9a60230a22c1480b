package com.hx.spark.sql.connector.aof.stream

import java.nio.file.Files

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.testkit.{
  Queries, SparkTestKit, TlsFiles, ZooKeeperFixture, ZooKeeperProcess
}
import com.hx.spark.sql.connector.aof.zookeeper.{ZkAccess, ZkClients}

/**
 * A ZooKeeper server as production ensembles run it: TLS on its only port (client certificates
 * asked for) and SASL required of every session (DIGEST-MD5 users in its JAAS `Server` section).
 */
class SecuredZooKeeperSuite extends AnyFunSuite with SparkTestKit with ZooKeeperFixture {
  private lazy val tls = new TlsFiles(newDir("tls"))
  private lazy val secured: ZooKeeperProcess = {
    val jaas = Files.writeString(
      newDir("jaas").resolve("server.jaas"),
      "Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n" +
        "  user_aof=\"s3cret\"\n  user_other=\"0ther\";\n};\n"
    )
    ZooKeeperProcess.start(
      newDir("secured-zk"),
      tls.serverSettings ++ Map(
        "java.security.auth.login.config" -> jaas.toString,
        "zookeeper.authProvider.1" -> "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
        // ZooKeeper 3.6's name for it, and 3.7's and later.
        "zookeeper.sessionRequireClientSASLAuth" -> "true",
        "zookeeper.enforce.auth.enabled" -> "true",
        "zookeeper.enforce.auth.schemes" -> "sasl",
        "zookeeper.fips-mode" -> "false" // which DIGEST-MD5 needs from ZooKeeper 3.8 on
      ),
      secure = true
    )
  }
  private val login = Map("zookeeper.sasl.user" -> "aof", "zookeeper.sasl.password" -> "s3cret")
  private val opened = collection.mutable.ListBuffer.empty[CuratorFramework]

  override protected def afterAll(): Unit =
    try opened.foreach(_.close())
    finally
      try secured.stop()
      finally super.afterAll()

  private def access(server: ZooKeeperProcess, options: Map[String, String]): ZkAccess = {
    val all = Map("path" -> "/var/log/app.log", "zookeeper.address" -> server.connectString)
    ZkAccess(
      server.connectString,
      30000,
      AofOptions.parse(all ++ options, Map.empty).zookeeperSecurity)
  }

  private def open(
      options: Map[String, String],
      server: ZooKeeperProcess = secured,
      metaStore: String = "/secure"): CuratorFramework = {
    val client = ZkClients.open(access(server, options), metaStore)
    opened += client
    client
  }

  /** The message of what opening a client threw, and how long it took to throw. */
  private def refusal(options: Map[String, String], server: ZooKeeperProcess = secured) = {
    val start = System.nanoTime()
    val e = intercept[RuntimeException](open(options, server))
    (e.getMessage, (System.nanoTime() - start) / 1000000)
  }

  test("TLS and SASL: the client connects, logs in, its znodes get ACLs for its identities") {
    val client = open(tls.clientOptions ++ login)
    ZkClients.ensure(client, "/secure/a")
    client.setData().forPath("/secure/a", "x".getBytes("UTF-8"))
    val acl = client.getACL.forPath("/secure/a").asScala
    // Each identity the client proved: its SASL user, its certificate's subject.
    val ids = acl.map(a => a.getId.getScheme -> a.getId.getId).toSet
    assert(ids === Set("sasl" -> "aof", "x509" -> "CN=client"))
  }

  test("a PEM trust store, its type told by its name") {
    val options = tls.clientOptions ++ login + ("zookeeper.ssl.truststore.location" ->
      tls.serverPem.toString) - "zookeeper.ssl.truststore.password"
    assert(open(options).checkExists().forPath("/") != null)
  }

  test("a trust store without ZooKeeper's certificate fails at once, naming the option") {
    val options =
      tls.clientOptions ++ login + ("zookeeper.ssl.truststore.location" -> tls.strangerTrust.toString)
    val (message, ms) = refusal(options)
    assert(message.contains("is not trusted"), message)
    assert(message.contains("'zookeeper.ssl.truststore.location'"), message)
    assert(ms < 10000, s"took $ms ms")
  }

  test("no key store where ZooKeeper asks for a client certificate: names the option") {
    val options = tls.clientOptions.filter(_._1.contains("truststore")) ++ login
    val (message, ms) = refusal(options)
    assert(message.contains("set 'zookeeper.ssl.keystore.location'"), message)
    assert(ms < 10000, s"took $ms ms")
  }

  test("a wrong store password or a missing store: names the option and the cause") {
    val wrong =
      refusal(tls.clientOptions ++ login + ("zookeeper.ssl.keystore.password" -> "nope"))._1
    assert(wrong.contains("'zookeeper.ssl.keystore.*'"), wrong)
    assert(wrong.toLowerCase.contains("password"), wrong)
    val missing =
      refusal(
        tls.clientOptions ++ login + ("zookeeper.ssl.truststore.location" -> "/no/such.jks"))._1
    assert(missing.contains("option 'zookeeper.ssl.truststore.location'"), missing)
    assert(missing.contains("--files"), missing)
  }

  test("no TLS options at a port that listens for TLS only: names TLS and its options, at once") {
    val (message, ms) = refusal(login)
    assert(message.contains("listens for TLS (a secureClientPort)"), message)
    assert(message.contains("'zookeeper.ssl.truststore.location'"), message)
    assert(message.contains("'zookeeper.ssl.keystore.location'"), message)
    assert(ms < 10000, s"took $ms ms")
  }

  test("TLS to a plain port names the secure port") {
    val (message, _) = refusal(tls.clientOptions, zk)
    assert(message.contains("the handshake ended"), message)
    assert(message.contains("secureClientPort"), message)
  }

  test("a wrong SASL password, and no login where SASL is required: one line each") {
    val wrong = refusal(tls.clientOptions ++ login + ("zookeeper.sasl.password" -> "nope"))._1
    assert(wrong.contains("refused this client's login"), wrong)
    assert(wrong.contains("'zookeeper.sasl.user' and 'zookeeper.sasl.password'"), wrong)
    val none = refusal(tls.clientOptions)._1
    assert(none.contains("it requires SASL"), none)
  }

  test("a JAAS section of the JVM's configuration, and a section it lacks") {
    val jaas = Files.writeString(
      newDir("client-jaas").resolve("client.jaas"),
      "AofClient {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n" +
        "  username=\"aof\"\n  password=\"s3cret\";\n};\n"
    )
    val previous = Option(System.getProperty("java.security.auth.login.config"))
    System.setProperty("java.security.auth.login.config", jaas.toString)
    try {
      javax.security.auth.login.Configuration.getConfiguration.refresh()
      val client = open(tls.clientOptions + ("zookeeper.sasl.section" -> "AofClient"))
      assert(client.checkExists().forPath("/") != null)
      val lacking = refusal(tls.clientOptions + ("zookeeper.sasl.section" -> "Nowhere"))._1
      assert(lacking.contains("option 'zookeeper.sasl.section'"), lacking)
      assert(lacking.contains(jaas.toString), lacking)
    } finally {
      previous.fold(System.clearProperty("java.security.auth.login.config"))(
        System.setProperty("java.security.auth.login.config", _))
    }
  }

  test("a meta.store another identity made: names the login options") {
    val mine = open(tls.clientOptions ++ login, metaStore = "/taken")
    ZkClients.ensure(mine, "/taken")
    val other = open(
      tls.clientOptions ++ Map(
        "zookeeper.ssl.keystore.location" -> tls.otherClientKeys.toString,
        "zookeeper.sasl.user" -> "other",
        "zookeeper.sasl.password" -> "0ther"),
      metaStore = "/taken"
    )
    val e = intercept[IllegalStateException](
      ZkClients.restrict(other, Seq("/taken"), access(secured, login).security))
    assert(e.getMessage.contains("'zookeeper.sasl.user'"), e.getMessage)
  }

  test("a stream over TLS and SASL reads every line exactly once, across a restart") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val options =
      Map("zookeeper.address" -> secured.connectString, "meta.store" -> "/secure/stream")
    Queries.assertOnceAcrossRestart(spark, dir, ckpt, out, tls.clientOptions ++ login ++ options)
    val acl = open(tls.clientOptions ++ login).getACL.forPath("/secure/stream/offsets").asScala
    assert(acl.map(_.getId.getScheme).toSet === Set("sasl", "x509"))
  }
}
