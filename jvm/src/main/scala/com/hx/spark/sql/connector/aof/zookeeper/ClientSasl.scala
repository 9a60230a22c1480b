package com.hx.spark.sql.connector.aof.zookeeper

import java.security.MessageDigest
import java.util.concurrent.ConcurrentHashMap
import javax.security.auth.login.{
  AppConfigurationEntry, Configuration, LoginContext, LoginException
}
import javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag.REQUIRED

import scala.collection.JavaConverters._
import scala.util.Try

import org.apache.zookeeper.client.ZKClientConfig

import com.hx.spark.sql.connector.aof.config.ZooKeeperSasl

/**
 * The client side of ZooKeeper's SASL. ZooKeeper's client logs in with a section of the JVM's
 * JAAS configuration, which is global: a section made from options is added beside the JVM's
 * own (a configuration that falls back to it), named by a hash of its content.
 */
private[zookeeper] object ClientSasl {
  private val Digest = "org.apache.zookeeper.server.auth.DigestLoginModule"
  private val made = new ConcurrentHashMap[String, Array[AppConfigurationEntry]]()

  private final class WithMade(base: Option[Configuration]) extends Configuration {
    override def getAppConfigurationEntry(name: String): Array[AppConfigurationEntry] =
      Option(made.get(name))
        .orElse(base.flatMap(b => Option(b.getAppConfigurationEntry(name))))
        .orNull
    override def refresh(): Unit = base.foreach(_.refresh())
  }

  /**
   * The client's properties to log in as `sasl` says, after a login that proves it can.
   *
   * @throws IllegalArgumentException naming the options, when the login fails here
   */
  def properties(sasl: ZooKeeperSasl): Map[String, String] = {
    val name = section(sasl)
    try {
      val login = new LoginContext(name)
      login.login()
      login.logout()
    } catch {
      case e: LoginException =>
        // Java says only that it found no password: the usual cause is a lapsed kinit.
        val cache =
          if (readsTicketCacheOnly(name)) {
            "the section logs in from a Kerberos ticket cache, whose ticket may be missing or " +
              "expired: run kinit again, or log in from a keytab; "
          } else ""
        throw new IllegalArgumentException(
          s"aof: the SASL login failed (${ClientTls.causes(e)}); $cache" +
            "check the options " + sasl.options.map(o => s"'$o'").mkString(" and ") + ".")
    }
    val digest =
      configuration.getAppConfigurationEntry(name).exists(_.getLoginModuleName == Digest)
    Map(
      ZKClientConfig.ENABLE_CLIENT_SASL_KEY -> "true",
      ZKClientConfig.LOGIN_CONTEXT_NAME_KEY -> name) ++
      // ZooKeeper 3.8 and later refuse DIGEST-MD5 in their FIPS mode, on by default.
      (if (digest) Map("zookeeper.fips-mode" -> "false") else Map.empty)
  }

  private def readsTicketCacheOnly(name: String): Boolean =
    Option(configuration.getAppConfigurationEntry(name)).toSeq.flatten.exists { entry =>
      val options = entry.getOptions.asScala.map { case (k, v) => k -> String.valueOf(v) }
      entry.getLoginModuleName.endsWith(".Krb5LoginModule") &&
      options.get("useTicketCache").exists(_.equalsIgnoreCase("true")) &&
      !options.get("useKeyTab").exists(_.equalsIgnoreCase("true"))
    }

  private def section(sasl: ZooKeeperSasl): String = sasl match {
    case ZooKeeperSasl.Section(name) =>
      if (configuration.getAppConfigurationEntry(name) == null) {
        val file = Option(System.getProperty("java.security.auth.login.config"))
        throw new IllegalArgumentException(
          s"aof: option 'zookeeper.sasl.section': the JVM's JAAS configuration " +
            file.fold("(no java.security.auth.login.config is set)")(f => s"($f)") +
            s" has no section '$name'; set that system property on the driver and executors " +
            "(spark.driver.extraJavaOptions, spark.executor.extraJavaOptions), or use the " +
            "options 'zookeeper.sasl.user' or 'zookeeper.sasl.kerberos.principal'.")
      }
      name
    case ZooKeeperSasl.Digest(user, password) =>
      add(Digest, Map("username" -> user, "password" -> password))
    case ZooKeeperSasl.Kerberos(principal, keytab) =>
      add(
        "com.sun.security.auth.module.Krb5LoginModule",
        Map(
          "useKeyTab" -> "true",
          "keyTab" -> ShippedFiles.local("zookeeper.sasl.kerberos.keytab", keytab),
          "principal" -> principal,
          "storeKey" -> "true",
          "useTicketCache" -> "false",
          "doNotPrompt" -> "true",
          "refreshKrb5Config" -> "true"
        )
      )
  }

  private def add(module: String, options: Map[String, String]): String = {
    val text = (module +: options.toSeq.sorted.map { case (k, v) => s"$k=$v" }).mkString("\n")
    val digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes("UTF-8"))
    val name = "aof-" + digest.take(8).map("%02x".format(_)).mkString
    made.computeIfAbsent(
      name,
      _ => Array(new AppConfigurationEntry(module, REQUIRED, options.asJava)))
    configuration
    name
  }

  /**
   * The JVM's JAAS configuration, with the sections made here; set again when another library
   * set its own since.
   */
  private def configuration: Configuration = synchronized {
    val current = Try(Configuration.getConfiguration).toOption
    current match {
      case Some(ours: WithMade) => ours
      case base =>
        val ours = new WithMade(base)
        Configuration.setConfiguration(ours)
        ours
    }
  }
}
