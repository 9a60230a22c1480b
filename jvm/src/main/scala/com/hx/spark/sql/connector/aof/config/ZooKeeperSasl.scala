package com.hx.spark.sql.connector.aof.config

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
