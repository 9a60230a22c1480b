package com.hx.spark.sql.connector.aof.config

/**
 * How the source's clients prove themselves to ZooKeeper and protect their znodes: digest
 * credentials, TLS, SASL, any of them together.
 */
final case class ZooKeeperSecurity(
    digest: Option[ZooKeeperAuth] = None,
    tls: Option[ZooKeeperTls] = None,
    sasl: Option[ZooKeeperSasl] = None) {

  /** Whether the source's znodes get ACLs for the client's identities. */
  def authenticated: Boolean = digest.isDefined || sasl.isDefined

  /** The options naming who the client is, for an error saying which to check. */
  def identityOptions: Seq[String] =
    digest.map(_ => Seq("zookeeper.auth.user", "zookeeper.auth.password")).getOrElse(Nil) ++
      sasl.map(_.options).getOrElse(Nil)
}

/**
 * A key or trust store file, as ZooKeeper's client reads it.
 *
 * @param option the option naming the file, `zookeeper.ssl.keystore` or `...truststore`
 * @param kind   `jks`, `pkcs12` or `pem`; None lets ZooKeeper tell by the file's extension
 */
final case class StoreFile(
    option: String,
    location: String,
    password: Option[String],
    kind: Option[String]) {
  override def toString: String =
    s"StoreFile($option, $location, ${password.map(_ => "*****")}, $kind)"
}

/** TLS to ZooKeeper; without a trust store, the JVM's certificate authorities are trusted. */
final case class ZooKeeperTls(
    keyStore: Option[StoreFile],
    trustStore: Option[StoreFile],
    hostnameVerification: Boolean)

/** Who the client is to ZooKeeper's SASL, and the options that said so. */
sealed trait ZooKeeperSasl {
  def options: Seq[String]
}

object ZooKeeperSasl {

  /** A section of the JVM's own JAAS configuration. */
  final case class Section(name: String) extends ZooKeeperSasl {
    def options: Seq[String] = Seq("zookeeper.sasl.section")
  }

  /** DIGEST-MD5 as a user of the server's JAAS `Server` section. */
  final case class Digest(user: String, password: String) extends ZooKeeperSasl {
    def options: Seq[String] = Seq("zookeeper.sasl.user", "zookeeper.sasl.password")
    override def toString: String = s"Digest($user, *****)"
  }

  /** Kerberos, logged in from a keytab. */
  final case class Kerberos(principal: String, keytab: String) extends ZooKeeperSasl {
    def options: Seq[String] =
      Seq("zookeeper.sasl.kerberos.principal", "zookeeper.sasl.kerberos.keytab")
  }
}
