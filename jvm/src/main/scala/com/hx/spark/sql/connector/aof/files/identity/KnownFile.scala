package com.hx.spark.sql.connector.aof.files.identity

/**
 * What the driver tells a node about a file it already tracks: where the node may stop looking
 * for the last newline, valid only while the file still starts with `fingerprint`, and which
 * prefix length to fingerprint again so the driver can compare; `tail`, when known, is the MD5 of
 * the bytes just before `floor`, by which a copy of the file is recognised.
 */
final case class KnownFile(
    key: FileKey,
    floor: Long,
    fingerprint: Fingerprint,
    tail: Option[Fingerprint] = None)
