package com.hx.spark.sql.connector.aof.config

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
