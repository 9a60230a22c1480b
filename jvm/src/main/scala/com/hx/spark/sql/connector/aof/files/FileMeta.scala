package com.hx.spark.sql.connector.aof.files

/**
 * What a node's endpoint reports about one file.
 *
 * @param size        bytes in the file now
 * @param lineEnd     end of the last complete line (just after its `\n`) at or after the floor the
 *                    driver asked about; bytes past it belong to a line still being written
 * @param fingerprint MD5 of the first `min(sample length, size)` bytes
 * @param probe       MD5 of a shorter prefix the driver asked for (the length it last saw)
 */
final case class FileMeta(
    path: String,
    key: FileKey,
    size: Long,
    lineEnd: Long,
    fingerprint: Fingerprint,
    probe: Option[Fingerprint])
