package com.hx.spark.sql.connector.aof.plan

/** Bytes `[from, until)` of a file that went (replaced, truncated, deleted) before being read. */
final case class Loss(host: String, path: String, fileId: String, from: Long, until: Long) {
  def bytes: Long = until - from

  override def toString: String = s"$host:$path (file $fileId) bytes $from to $until"
}
