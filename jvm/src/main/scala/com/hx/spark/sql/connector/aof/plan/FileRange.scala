package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}

/**
 * Bytes `[from, until)` of one file on one host: the lines whose first byte lies there. `path` is
 * where the file was when planned; the reader follows `key` if it was renamed since, and `head`
 * to a copy if the file was truncated (logrotate's `copytruncate`) before it was read.
 * `continues`, for a range from a file's start, is the open tail of the file it continues (a
 * container runtime's, renamed amid a message): read first, its messages completed by this one.
 */
final case class FileRange(
    host: String,
    path: String,
    key: FileKey,
    fileId: String,
    from: Long,
    until: Long,
    head: Fingerprint,
    continues: Option[FileRange] = None)
