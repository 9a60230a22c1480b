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
