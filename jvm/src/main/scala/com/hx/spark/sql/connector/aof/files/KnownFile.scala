package com.hx.spark.sql.connector.aof.files

/**
 * What the driver tells a node about a file it already tracks, so the node's answer is cheap and
 * comparable: where to stop looking for the last newline, and which prefix length to fingerprint.
 */
final case class KnownFile(key: FileKey, floor: Long, fingerprintLength: Long)
