package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}

import scala.sys.process._

/**
 * Key and trust stores made by the JDK's `keytool`, as an operator makes them: a server's key
 * (its certificate naming 127.0.0.1 and localhost), two clients' keys, a trust store for each
 * side holding the other's certificates, the server's certificate as a PEM file, and a
 * stranger's trust store that holds none of them.
 */
final class TlsFiles(dir: Path) {
  val password: String = "changeit"
  val serverKeys: Path = dir.resolve("server.p12")
  val clientKeys: Path = dir.resolve("client.p12")
  val otherClientKeys: Path = dir.resolve("other.p12")
  val clientTrust: Path = dir.resolve("client-trust.jks")
  val serverTrust: Path = dir.resolve("server-trust.jks")
  val serverPem: Path = dir.resolve("server.pem")
  val strangerTrust: Path = dir.resolve("stranger-trust.jks")

  private val keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString

  private def run(args: String*): Unit = {
    val out = new StringBuilder
    val code = (keytool +: args).!(ProcessLogger(l => out.append(l).append('\n')))
    require(code == 0, s"keytool ${args.head} failed: $out")
  }

  private def key(store: Path, alias: String, san: String): Unit =
    run(
      "-genkeypair",
      "-alias",
      alias,
      "-keyalg",
      "RSA",
      "-keysize",
      "2048",
      "-validity",
      "2",
      "-dname",
      s"CN=$alias",
      "-ext",
      s"SAN=$san",
      "-keystore",
      store.toString,
      "-storetype",
      "PKCS12",
      "-storepass",
      password
    )

  private def trust(from: Path, alias: String, into: Path): Unit = {
    val cert = dir.resolve(s"$alias.crt")
    run(
      "-exportcert",
      "-rfc",
      "-alias",
      alias,
      "-keystore",
      from.toString,
      "-storepass",
      password,
      "-file",
      cert.toString)
    run(
      "-importcert",
      "-noprompt",
      "-alias",
      alias,
      "-file",
      cert.toString,
      "-keystore",
      into.toString,
      "-storetype",
      "JKS",
      "-storepass",
      password)
  }

  Files.createDirectories(dir)
  key(serverKeys, "server", "ip:127.0.0.1,dns:localhost")
  key(clientKeys, "client", "ip:127.0.0.1,dns:localhost")
  key(otherClientKeys, "other", "ip:127.0.0.1,dns:localhost")
  private val strangerKeys = dir.resolve("stranger.p12")
  key(strangerKeys, "stranger", "ip:127.0.0.1,dns:localhost")
  trust(serverKeys, "server", clientTrust)
  trust(clientKeys, "client", serverTrust)
  trust(otherClientKeys, "other", serverTrust)
  trust(strangerKeys, "stranger", strangerTrust)
  Files.copy(dir.resolve("server.crt"), serverPem)

  /** The server's side of TLS, as system properties of its JVM. */
  def serverSettings: Map[String, String] = Map(
    // Without it the server closes every TLS connection once its handshake is done.
    "zookeeper.authProvider.x509" -> "org.apache.zookeeper.server.auth.X509AuthenticationProvider",
    "zookeeper.ssl.keyStore.location" -> serverKeys.toString,
    "zookeeper.ssl.keyStore.password" -> password,
    "zookeeper.ssl.trustStore.location" -> serverTrust.toString,
    "zookeeper.ssl.trustStore.password" -> password
  )

  /** The source's options for a client the server trusts. */
  def clientOptions: Map[String, String] = Map(
    "zookeeper.ssl.keystore.location" -> clientKeys.toString,
    "zookeeper.ssl.keystore.password" -> password,
    "zookeeper.ssl.truststore.location" -> clientTrust.toString,
    "zookeeper.ssl.truststore.password" -> password
  )
}
