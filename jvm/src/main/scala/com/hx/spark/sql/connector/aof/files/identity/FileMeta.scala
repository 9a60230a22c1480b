package com.hx.spark.sql.connector.aof.files.identity

/**
 * What a node's endpoint reports about one file.
 *
 * @param size        bytes in the file now
 * @param lineEnd     end of the last complete line (just after its `\n`) at or after the floor the
 *                    driver asked about; bytes past it belong to a line still being written. With
 *                    multi-line records, the end of the last complete record ([[RecordEnds]])
 * @param fingerprint MD5 of the first `min(sample length, size)` bytes
 * @param probe       MD5 of a shorter prefix the driver asked for (the length it last saw)
 * @param floor       the position the driver asked about (its offset in the file); None when it
 *                    asked nothing about this file, so nothing here speaks of its offset
 * @param tailAtFloor MD5 of the bytes just before `floor`, when the file still reaches it:
 *                    content rewritten under the same head shows here
 * @param tailAtLineEnd MD5 of the bytes just before `lineEnd`, kept by the driver when it plans
 *                    up to there, so the next trigger can compare
 * @param copyOf      a tracked file whose head and bytes before its position this (untracked)
 *                    file holds too, or that it is the beginning of: a copy, complete or being
 *                    written, as logrotate's `copytruncate` makes; or a file of the same answer
 *                    not tracked yet, of which it is a copy ([[NewFileCopies]])
 * @param copyOfRetired a file the driver retired (no longer tracks, but a copy of it may show up;
 *                    by file id) whose head this file holds, and either its bytes before its
 *                    position (a copy) or fewer bytes than that (it may be one, half-written)
 * @param cuts        line (or record) starts before `lineEnd` where a batch may end early, when
 *                    a byte limit bounds it ([[BatchCuts]])
 * @param ignored     not tracked and not modified for `ignore.older`, and no copy: the driver
 *                    follows it from `lineEnd` rather than read it
 * @param unreadable  why the file could not be read this time (its permissions, an I/O error):
 *                    only `path`, `key` and `size` are known then, and the driver keeps its
 *                    position, so that it goes on from there once the file can be read again
 * @param openFrom    a runtime's file read to its end: where the lines of the messages still open
 *                    there start ([[RecordEnds.openFrom]]). Kept on the node, never sent
 * @param continues   the file a container runtime wrote before it reopened this one's name, whose
 *                    open messages this one's first lines complete ([[RuntimeReopens]]): read
 *                    from its start, this file is read after that one's bytes from its `lineEnd`
 * @param modifiedMs  the file's last write (the epoch's milliseconds); 0 when not known: for the
 *                    metrics only, never for a decision
 * @param start       where what the file holds starts: 0, but for a journal's sequence the
 *                    number of the oldest entry journald keeps (`starting.offsets` earliest)
 */
final case class FileMeta(
    path: String,
    key: FileKey,
    size: Long,
    lineEnd: Long,
    fingerprint: Fingerprint,
    probe: Option[Fingerprint],
    floor: Option[Long] = None,
    tailAtFloor: Option[Fingerprint] = None,
    tailAtLineEnd: Option[Fingerprint] = None,
    copyOf: Option[FileKey] = None,
    unreadable: Option[String] = None,
    cuts: Seq[Long] = Nil,
    copyOfRetired: Option[String] = None,
    ignored: Boolean = false,
    openFrom: Option[Long] = None,
    continues: Option[FileKey] = None,
    modifiedMs: Long = 0L,
    start: Long = 0L) {

  /** The MD5 of the file's first `length` bytes, when the answer holds it (head or probe). */
  def headAt(length: Long): Option[Fingerprint] =
    if (length == fingerprint.length) Some(fingerprint) else probe.filter(_.length == length)

  /** The MD5 of the bytes before `pos`, when the node looked there: at the floor asked about. */
  def tailAt(pos: Long): Option[Option[Fingerprint]] =
    if (floor.contains(pos)) Some(tailAtFloor) else None
}

object FileMeta {

  /** A file seen by `stat` that could not be opened or read: `why` says what failed. */
  def unreadable(path: String, stamp: FileStamp, why: String): FileMeta =
    FileMeta(
      path,
      stamp.key,
      stamp.size,
      0L,
      Fingerprint.Empty,
      None,
      unreadable = Some(why),
      modifiedMs = stamp.modifiedMs)
}
