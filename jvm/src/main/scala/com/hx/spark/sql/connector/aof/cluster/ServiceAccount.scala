package com.hx.spark.sql.connector.aof.cluster

import java.io.FileInputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}
import java.security.KeyStore
import java.security.cert.CertificateFactory
import javax.net.ssl.{SSLContext, SSLSocketFactory, TrustManagerFactory}

import scala.collection.JavaConverters._

/**
 * What a pod proves itself with to the API server: its service account's token, and the
 * authorities that sign the server's certificate. Either may be absent (no account mounted).
 */
final case class ServiceAccount(tokenFile: Path, authoritiesFile: Path) {
  def token: Option[String] =
    Some(tokenFile)
      .filter(Files.isReadable(_))
      .map(f => new String(Files.readAllBytes(f), UTF_8))
      .map(_.trim)

  def authorities: Option[SSLSocketFactory] =
    Some(authoritiesFile).filter(Files.isReadable(_)).map { file =>
      val certificates = {
        val in = new FileInputStream(file.toFile)
        try CertificateFactory.getInstance("X.509").generateCertificates(in).asScala.toSeq
        finally in.close()
      }
      val store = KeyStore.getInstance(KeyStore.getDefaultType)
      store.load(null, null)
      certificates.zipWithIndex.foreach { case (c, i) => store.setCertificateEntry(s"ca-$i", c) }
      val trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
      trust.init(store)
      val context = SSLContext.getInstance("TLS")
      context.init(null, trust.getTrustManagers, null)
      context.getSocketFactory
    }
}

object ServiceAccount {
  private val Mounted = Paths.get("/var/run/secrets/kubernetes.io/serviceaccount")

  /** Where Kubernetes mounts a pod's service account. */
  val InPod: ServiceAccount = ServiceAccount(Mounted.resolve("token"), Mounted.resolve("ca.crt"))
}
