package com.hx.spark.sql.connector.aof.files.scan

import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, FileStamp, Fingerprint, KnownFile}

/**
 * The answer a node keeps for a file ([[FileTracker]]): given at `stamp` to what the driver's
 * request `asked` of it; for a compressed file, with its compressed bytes' tail. Kept answers are
 * compared by identity ([[KeptDirectories]]): a new answer is a new object.
 */
private[files] final case class FileDescription(
    stamp: FileStamp,
    asked: Option[KnownFile],
    meta: FileMeta,
    compressedTail: Option[Fingerprint])
