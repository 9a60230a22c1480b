package com.hx.spark.sql.connector.aof.offset

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint, KnownFile}

/**
 * Progress through one file on one host.
 *
 * @param serial      distinguishes successive files that reuse a key (replaced, truncated, inode
 *                    reuse), so `fileId` never names two contents within a query
 * @param first       where this query started reading the file: a batch that first sees it reads
 *                    from here, so planning never needs live state
 * @param pos         everything before this byte has been planned
 * @param fingerprint of the prefix seen when `pos` was planned
 * @param tail        MD5 of the bytes just before `pos`, when known: a file whose head is the same
 *                    but whose content before `pos` is not (rewritten, or a reused inode) is new
 * @param seen        the file's size when `pos` was planned: what is lost if it goes unread
 * @param skipped     the bytes before `first` were never read, here or in a file this one is a
 *                    copy of: the query started after them (`starting.offsets` latest,
 *                    `ignore.older`). `cleanup` never removes such a file
 * @param continues   the file (by id) whose bytes from a position on are read before this one's
 *                    first: a container runtime's file renamed amid a message, which this file,
 *                    reopened at its name, completes. Set in the batch that first reads this file
 *                    from its start, whose end moves that file past them
 */
final case class FileOffset(
    path: String,
    key: FileKey,
    serial: Long,
    first: Long,
    pos: Long,
    fingerprint: Fingerprint,
    tail: Option[Fingerprint] = None,
    seen: Long = 0L,
    continues: Option[OpenTail] = None,
    skipped: Boolean = false) {
  // Kept, not rebuilt: planning sorts and looks up thousands of files by it on every trigger.
  val fileId: String = FileOffset.fileId(key, serial)

  /**
   * What a node is told of the file, and what its answer is compared with: one object while the
   * offset is, so that comparing an unchanged file's with the last request's ends there.
   */
  @transient lazy val known: KnownFile = KnownFile(key, pos, fingerprint, tail)
}

/** The bytes of file `fileId` from `from` to its position: messages another file completes. */
final case class OpenTail(fileId: String, from: Long)

object FileOffset {
  def fileId(key: FileKey, serial: Long): String = s"${key.dev}:${key.ino}:$serial"
}
