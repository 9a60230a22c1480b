package com.hx.spark.sql.connector.aof.plan

/**
 * Bytes `[from, until)` of a file that went (replaced, truncated, deleted) before being read;
 * `copy`, a file that holds them which the source does not read ([[UnmatchedCopy]]).
 */
final case class Loss(
    host: String,
    path: String,
    fileId: String,
    from: Long,
    until: Long,
    copy: Option[String] = None) {
  def bytes: Long = until - from

  override def toString: String =
    s"$host:$path (file $fileId) bytes $from to $until" +
      copy.fold("")(c => s", which its copy $c holds")
}
