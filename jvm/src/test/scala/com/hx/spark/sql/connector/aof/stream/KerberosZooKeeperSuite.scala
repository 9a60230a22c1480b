package com.hx.spark.sql.connector.aof.stream

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.testkit.{Kerberos, Queries, SparkTestKit, ZooKeeperProcess}
import com.hx.spark.sql.connector.aof.zookeeper.{ZkAccess, ZkClients}

/**
 * A ZooKeeper server that requires a Kerberos login of every session, a KDC in this JVM, and
 * the source logging in from a keytab (`zookeeper.sasl.kerberos.*`).
 */
class KerberosZooKeeperSuite extends AnyFunSuite with SparkTestKit {
  private lazy val kerberos = {
    val k = new Kerberos(newDir("kdc"), Seq("aof", "intruder"))
    // Read at every login (the source's JAAS entries refresh it): this JVM's clients find the KDC.
    System.setProperty("java.security.krb5.conf", k.krb5Conf.toString)
    k
  }
  private lazy val server =
    ZooKeeperProcess.start(newDir("zk"), kerberos.serverSettings(newDir("jaas")))
  private val opened = collection.mutable.ListBuffer.empty[CuratorFramework]

  override protected def afterAll(): Unit =
    try opened.foreach(_.close())
    finally
      try server.stop()
      finally
        try kerberos.stop()
        finally super.afterAll()

  private def login(name: String): Map[String, String] = Map(
    "zookeeper.sasl.kerberos.principal" -> s"$name@${kerberos.realm}",
    "zookeeper.sasl.kerberos.keytab" -> kerberos.clientKeytabs(name).toString)

  private def access(options: Map[String, String]): ZkAccess = {
    val all = Map("path" -> "/var/log/app.log", "zookeeper.address" -> server.connectString)
    val security = AofOptions.parse(all ++ options, Map.empty).zookeeperSecurity
    ZkAccess(server.connectString, 30000, security)
  }

  private def open(options: Map[String, String], metaStore: String): CuratorFramework = {
    val client = ZkClients.open(access(options), metaStore)
    opened += client
    client
  }

  test("a stream logged in from a keytab reads every line once; its znodes are its principal's") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val options = Map("zookeeper.address" -> server.connectString, "meta.store" -> "/krb")
    Queries.assertOnceAcrossRestart(spark, dir, ckpt, out, login("aof") ++ options)
    val acl = open(login("aof"), "/krb").getACL.forPath("/krb/offsets").asScala
    assert(acl.map(a => a.getId.getScheme -> a.getId.getId) === Seq("sasl" -> "aof@EXAMPLE.COM"))
  }

  test("another principal on the meta.store, a missing keytab, an unknown principal: one line") {
    val other = open(login("intruder"), "/krb")
    val e = intercept[IllegalStateException](
      ZkClients.restrict(other, Seq("/krb"), access(login("intruder")).security))
    assert(e.getMessage.contains("'zookeeper.sasl.kerberos.principal'"), e.getMessage)

    val missing = intercept[IllegalArgumentException](
      open(login("aof") + ("zookeeper.sasl.kerberos.keytab" -> "/no/aof.keytab"), "/krb"))
    assert(missing.getMessage.contains("option 'zookeeper.sasl.kerberos.keytab'"))

    val unknown = intercept[IllegalArgumentException](
      open(login("aof") + ("zookeeper.sasl.kerberos.principal" -> "nobody@EXAMPLE.COM"), "/krb"))
    assert(unknown.getMessage.startsWith("aof: the SASL login failed ("), unknown.getMessage)
    assert(unknown.getMessage.contains("'zookeeper.sasl.kerberos.keytab'"), unknown.getMessage)
  }

  test("the JVM's own JAAS configuration: a Kerberos section names the login") {
    val section = s"""useKeyTab=true keyTab="${kerberos.clientKeytabs("aof")}" storeKey=true"""
    withJvmSection("AofKerberos", section) {
      val client = open(Map("zookeeper.sasl.section" -> "AofKerberos"), "/krb")
      assert(client.getACL.forPath("/krb").asScala.map(_.getId.getId) === Seq("aof@EXAMPLE.COM"))
    }
  }

  test("a section that reads a ticket cache logs in; once the ticket expires, one line says so") {
    val fresh = kerberos.ticketCache("aof", 3600)
    withJvmSection("AofCache", s"""useTicketCache=true ticketCache="${fresh.file}"""") {
      val client = open(Map("zookeeper.sasl.section" -> "AofCache"), "/krb")
      assert(client.getACL.forPath("/krb").asScala.map(_.getId.getId) === Seq("aof@EXAMPLE.COM"))
    }

    val expiring = kerberos.ticketCache("aof", 1)
    eventually("the ticket's end")(System.currentTimeMillis() > expiring.endsAtMs)
    withJvmSection("AofExpired", s"""useTicketCache=true ticketCache="${expiring.file}"""") {
      val e = intercept[IllegalArgumentException](
        open(Map("zookeeper.sasl.section" -> "AofExpired"), "/krb"))
      assert(e.getMessage.startsWith("aof: the SASL login failed ("), e.getMessage)
      assert(e.getMessage.contains("missing or expired: run kinit again"), e.getMessage)
      assert(e.getMessage.contains("'zookeeper.sasl.section'"), e.getMessage)
      assert(!e.getMessage.contains("\n"), e.getMessage)
    }
  }

  /** Runs `body` with the JVM's JAAS file holding one Kerberos section for `aof`. */
  private def withJvmSection(name: String, settings: String)(body: => Unit): Unit = {
    val jaas = java.nio.file.Files.writeString(
      newDir("client-jaas").resolve("client.jaas"),
      s"$name {\n  com.sun.security.auth.module.Krb5LoginModule required\n" +
        s"""  $settings doNotPrompt=true principal="aof@${kerberos.realm}";\n};\n"""
    )
    val previous = Option(System.getProperty("java.security.auth.login.config"))
    System.setProperty("java.security.auth.login.config", jaas.toString)
    try {
      javax.security.auth.login.Configuration.getConfiguration.refresh()
      body
    } finally {
      previous.fold(System.clearProperty("java.security.auth.login.config"))(
        System.setProperty("java.security.auth.login.config", _))
    }
  }
}
