package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}

import org.apache.kerby.KOptions
import org.apache.kerby.kerberos.kerb.client.KrbOption
import org.apache.kerby.kerberos.kerb.server.{KdcConfigKey, SimpleKdcServer}

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
  // So that a test can be given a ticket that lives one second: Kerby compares its default
  // minimum, 3600, with a lifetime in milliseconds, and would refuse it.
  kdc.getKdcConfig.setLong(KdcConfigKey.MINIMUM_TICKET_LIFETIME, 0L)
  kdc.setKdcTcpPort(FreePorts.next())
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

  /**
   * A ticket cache, as `kinit` writes, holding a ticket of `name`'s that lives `seconds` seconds.
   */
  def ticketCache(name: String, seconds: Int): TicketCache = {
    val options = new KOptions()
    options.add(KrbOption.CLIENT_PRINCIPAL, s"$name@$realm")
    options.add(KrbOption.USE_KEYTAB, true)
    options.add(KrbOption.KEYTAB_FILE, clientKeytabs(name).toFile)
    options.add(KrbOption.LIFE_TIME, seconds)
    val client = kdc.getKrbClient
    val ticket = client.requestTgt(options)
    val file = Files.createTempFile(dir, s"$name-", ".ccache")
    client.storeTicket(ticket, file.toFile)
    TicketCache(file, ticket.getEncKdcRepPart.getEndTime.getTime)
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

/** A ticket cache file and the time its ticket ends, in milliseconds since the epoch. */
final case class TicketCache(file: Path, endsAtMs: Long)
