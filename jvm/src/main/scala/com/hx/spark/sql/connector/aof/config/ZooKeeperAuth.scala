package com.hx.spark.sql.connector.aof.config

/** Digest credentials for ZooKeeper; never printed, so they stay out of logs and plans. */
final case class ZooKeeperAuth(user: String, password: String) {
  override def toString: String = s"ZooKeeperAuth($user, *****)"
}
