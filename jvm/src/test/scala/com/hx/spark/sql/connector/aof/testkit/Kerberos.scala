package com.hx.spark.sql.connector.aof.testkit

import java.net.ServerSocket
import java.nio.file.{Files, Path}

import org.apache.kerby.kerberos.kerb.server.SimpleKdcServer

/**
 * A Kerberos KDC in the test JVM (Apache Kerby's, as Hadoop's MiniKdc), its realm EXAMPLE.COM,
 * and keytabs it writes: ZooKeeper's service principal and the clients' principals.
 */
final class Kerberos(dir: Path, clients: Seq[String]) {
  val realm: String = "EXAMPLE.COM"
  private val kdc = new SimpleKdcServer()
  kdc.setWorkDir(dir.toFile)
  kdc.setKdcHost("localhost")
  kdc.setKdcRealm(realm)
  kdc.setAllowUdp(false)
  kdc.setKdcTcpPort {
    val socket = new ServerSocket(0)
    try socket.getLocalPort
    finally socket.close()
  }
  kdc.init()
  kdc.start()

  /** The configuration a JVM needs to find this KDC (`java.security.krb5.conf`). */
  val krb5Conf: Path = dir.resolve("krb5.conf")

  val serverPrincipal: String = s"zookeeper/localhost@$realm"
  val serverKeytab: Path = keytab("zookeeper", serverPrincipal)

  /** Each client's keytab, by its principal's name without the realm. */
  val clientKeytabs: Map[String, Path] =
    clients.map(name => name -> keytab(name, s"$name@$realm")).toMap

  private def keytab(name: String, principal: String): Path = {
    val file = dir.resolve(s"${name.replace('/', '_')}.keytab")
    kdc.createAndExportPrincipals(file.toFile, principal)
    file
  }

  /** The ZooKeeper server's side: its JVM's system properties for a Kerberos login. */
  def serverSettings(jaasDir: Path): Map[String, String] = {
    val jaas = Files.writeString(
      jaasDir.resolve("server-kerberos.jaas"),
      "Server {\n  com.sun.security.auth.module.Krb5LoginModule required\n" +
        s"""  useKeyTab=true keyTab="$serverKeytab" storeKey=true useTicketCache=false\n""" +
        s"""  principal="$serverPrincipal";\n};\n"""
    )
    Map(
      "java.security.krb5.conf" -> krb5Conf.toString,
      "java.security.auth.login.config" -> jaas.toString,
      "zookeeper.authProvider.sasl" ->
        "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
      "zookeeper.sessionRequireClientSASLAuth" -> "true",
      "zookeeper.enforce.auth.enabled" -> "true",
      "zookeeper.enforce.auth.schemes" -> "sasl"
    )
  }

  def stop(): Unit = kdc.stop()
}
