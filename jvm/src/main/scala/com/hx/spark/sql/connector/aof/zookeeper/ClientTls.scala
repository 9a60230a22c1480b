package com.hx.spark.sql.connector.aof.zookeeper

import java.io.IOException
import java.net.{InetSocketAddress, Socket, SocketTimeoutException}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.util.Locale
import java.nio.ByteBuffer
import javax.net.ssl.{SSLContext, SSLException, SSLHandshakeException, SSLSocket}

import org.apache.zookeeper.client.ZKClientConfig
import org.apache.zookeeper.common.{ClientX509Util, X509Exception}

import com.hx.spark.sql.connector.aof.config.{StoreFile, ZooKeeperTls}

/**
 * The client side of ZooKeeper's TLS: the client's properties, and what to say when a store or
 * a certificate is wrong. ZooKeeper's own client only logs such a failure and tries again until
 * it gives up; here the stores are loaded (by ZooKeeper's own loader) and a handshake is tried
 * before the client starts, so that the error names the option to fix.
 */
private[zookeeper] object ClientTls {

  /** The client's properties for `tls`, its files found on this host. */
  def properties(tls: ZooKeeperTls): Map[String, String] = {
    val x509 = new ClientX509Util()
    try {
      def store(file: Option[StoreFile], location: String, password: String, kind: String) =
        file.toSeq.flatMap { s =>
          val file = ShippedFiles.local(s"${s.option}.location", s.location)
          Seq(location -> file) ++
            s.password.map(password -> _) ++
            s.kind.orElse(pem(file)).map(kind -> _.toUpperCase(Locale.ROOT))
        }
      (Seq(
        ZKClientConfig.SECURE_CLIENT -> "true",
        x509.getSslHostnameVerificationEnabledProperty -> tls.hostnameVerification.toString) ++
        store(
          tls.keyStore,
          x509.getSslKeystoreLocationProperty,
          x509.getSslKeystorePasswdProperty,
          x509.getSslKeystoreTypeProperty) ++
        store(
          tls.trustStore,
          x509.getSslTruststoreLocationProperty,
          x509.getSslTruststorePasswdProperty,
          x509.getSslTruststoreTypeProperty)).toMap
    } finally x509.close()
  }

  /**
   * "pem" for a PEM file whatever its name: ZooKeeper tells a store's type by its extension
   * alone, and knows `.pem` but not `.crt` or `.key`.
   */
  private def pem(file: String): Option[String] = {
    val in = Files.newInputStream(Paths.get(file))
    try {
      val head = new Array[Byte](4096)
      val n = in.read(head)
      Some("pem").filter(_ => n > 0 && new String(head, 0, n, UTF_8).contains("-----BEGIN"))
    } finally in.close()
  }

  /**
   * The SSL context the client will use, made as ZooKeeper makes it.
   *
   * @throws IllegalArgumentException naming the store's option, when it cannot be loaded
   */
  def context(tls: ZooKeeperTls, config: ZKClientConfig): SSLContext = {
    val x509 = new ClientX509Util()
    try x509.createSSLContext(config)
    catch {
      case e: X509Exception =>
        val store = chain(e).collectFirst {
          case _: X509Exception.KeyManagerException => tls.keyStore
          case _: X509Exception.TrustManagerException => tls.trustStore
        }.flatten
        val options = store.map(s => s"'${s.option}.*'").getOrElse("'zookeeper.ssl.*'")
        throw new IllegalArgumentException(
          s"aof: cannot load the TLS ${store.fold("stores")(s => s"file ${s.location}")} " +
            s"(${causes(e)}); check the options $options.")
    } finally x509.close()
  }

  /** What a handshake with one server found. */
  sealed trait Handshake
  case object Accepted extends Handshake
  case object NotListening extends Handshake
  final case class Refused(reason: String) extends Handshake

  /**
   * Tries a TLS handshake with `server`, then waits `readWait` ms for an alert: with TLS 1.3 a
   * server that refuses the client's certificate says so only after the handshake.
   */
  def handshake(
      context: SSLContext,
      tls: ZooKeeperTls,
      server: InetSocketAddress,
      readWait: Int): Handshake =
    overTls(context, server, NotListening: Handshake) { socket =>
      if (tls.hostnameVerification) {
        // What ZooKeeper's client checks too (in FIPS mode, the default of 3.8 and later).
        val parameters = socket.getSSLParameters
        parameters.setEndpointIdentificationAlgorithm("HTTPS")
        socket.setSSLParameters(parameters)
      }
      try {
        socket.startHandshake()
        socket.setSoTimeout(readWait)
        socket.getInputStream.read() // ZooKeeper speaks only when spoken to
        Refused(s"it closed the connection after the handshake; ${keyStoreHint(tls)}")
      } catch {
        case _: SocketTimeoutException => Accepted
        case e: SSLHandshakeException if isCertificate(e) =>
          Refused(s"its certificate is not trusted (${causes(e)}); ${trustHint(tls)}")
        case e: SSLException if isAlert(e) =>
          Refused(s"it refused this client (${causes(e)}); ${keyStoreHint(tls)}")
        case e: SSLException =>
          Refused(
            s"the handshake ended (${causes(e)}); check that 'zookeeper.address' names " +
              "ZooKeeper's secureClientPort (a plain port ends it so), then the server's TLS " +
              "settings")
      }
    }

  /**
   * `use` of a TLS socket to `server` over a plain connection (closed after), not handshaken yet;
   * `unreachable` when the server cannot be reached.
   */
  private def overTls[T](context: SSLContext, server: InetSocketAddress, unreachable: T)(
      use: SSLSocket => T): T = {
    val plain = new Socket()
    try {
      plain.connect(server, 1000)
      val socket = context.getSocketFactory
        .createSocket(plain, server.getHostString, server.getPort, true)
        .asInstanceOf[SSLSocket]
      socket.setSoTimeout(5000)
      try use(socket)
      finally socket.close()
    } catch { case _: IOException => unreachable }
    finally plain.close()
  }

  /**
   * Whether the server speaks TLS, for a client without TLS options that it let connect and then
   * hung up on: sent a TLS hello, a TLS server answers with a TLS record (its hello, or an alert),
   * whose first byte says so before any certificate is looked at. A plain ZooKeeper server reads
   * the hello as an oversized request and closes the connection.
   */
  def speaksTls(server: InetSocketAddress): Boolean = {
    val engine = SSLContext.getDefault.createSSLEngine()
    engine.setUseClientMode(true)
    val hello = ByteBuffer.allocate(engine.getSession.getPacketBufferSize)
    engine.beginHandshake()
    engine.wrap(ByteBuffer.allocate(0), hello)
    val socket = new Socket()
    try {
      socket.connect(server, 1000)
      socket.setSoTimeout(3000)
      socket.getOutputStream.write(hello.array(), 0, hello.position())
      val first = socket.getInputStream.read()
      first == TlsHandshakeRecord || first == TlsAlertRecord
    } catch { case _: IOException => false }
    finally socket.close()
  }

  // The content types of a TLS record, its first byte.
  private val TlsAlertRecord = 21
  private val TlsHandshakeRecord = 22

  private def isCertificate(e: Throwable): Boolean =
    chain(e).exists(_.isInstanceOf[java.security.cert.CertificateException]) ||
      causes(e).contains("PKIX")

  private def isAlert(e: Throwable): Boolean = causes(e).contains("alert")

  private def trustHint(tls: ZooKeeperTls): String =
    tls.trustStore.fold(
      "set 'zookeeper.ssl.truststore.location' to a trust store with the certificate of " +
        "ZooKeeper's authority")(_ => "check 'zookeeper.ssl.truststore.location'") +
      (if (tls.hostnameVerification) " (and that the certificate names this address)" else "")

  private def keyStoreHint(tls: ZooKeeperTls): String =
    tls.keyStore.fold(
      "ZooKeeper asks for a client certificate: set 'zookeeper.ssl.keystore.location'")(_ =>
      "check that ZooKeeper trusts the certificate of 'zookeeper.ssl.keystore.location'")

  private def chain(e: Throwable): Seq[Throwable] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(10).toSeq

  /** The messages of `e`'s causes, outermost first, each one not already said. */
  def causes(e: Throwable): String =
    // One line: some messages end with a line break (Krb5LoginModule's do).
    chain(e)
      .flatMap(c => Option(c.getMessage).map(_.trim.replaceAll("\\s+", " ")))
      .foldLeft("") { (said, message) =>
        if (said.contains(message)) said else if (said.isEmpty) message else s"$said: $message"
      }
}
