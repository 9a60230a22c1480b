package com.hx.spark.sql.connector.aof.files.identity

/**
 * MD5 of a file's first `length` bytes. The length grows with the file up to the sample length, so
 * files shorter than the sample are still checked (the original never checked them).
 */
final case class Fingerprint(length: Long, md5: String)

object Fingerprint {

  /** The fingerprint of zero bytes: agrees with every file. */
  val Empty: Fingerprint = Fingerprint(0L, "d41d8cd98f00b204e9800998ecf8427e")
}
