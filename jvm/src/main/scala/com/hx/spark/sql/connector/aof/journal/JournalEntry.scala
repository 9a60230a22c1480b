package com.hx.spark.sql.connector.aof.journal

import java.nio.charset.StandardCharsets.UTF_8

/**
 * One entry of a journal: where it stands in its sequence, when it was written, and its fields
 * as journald stored them (`MESSAGE`, `_SYSTEMD_UNIT`, ...), each value its bytes: a field may
 * hold any bytes, and a field may come more than once.
 *
 * @param seqnumId  the sequence the entry is numbered in ([[JournalHeader.seqnumId]])
 * @param seqnum    its number there: (seqnumId, seqnum) names the entry in whichever file
 * @param realtime  when it was written, in microseconds since the epoch
 * @param monotonic the boot's monotonic clock then, in microseconds
 * @param bootId    the boot it was written in (hex)
 * @param xorHash   journald's hash of its fields, which its cursor carries
 */
final case class JournalEntry(
    seqnumId: String,
    seqnum: Long,
    realtime: Long,
    monotonic: Long,
    bootId: String,
    xorHash: Long,
    fields: Seq[(String, Array[Byte])]) {

  /** The first value of the field `name`, decoded as UTF-8 (invalid bytes replaced). */
  def text(name: String): Option[String] =
    fields.collectFirst { case (`name`, value) => new String(value, UTF_8) }

  /** The entry's cursor, as `journalctl --show-cursor` prints it and `--after-cursor` takes it. */
  def cursor: String = {
    import java.lang.Long.toHexString
    s"s=$seqnumId;i=${toHexString(seqnum)};b=$bootId;m=${toHexString(monotonic)};" +
      s"t=${toHexString(realtime)};x=${toHexString(xorHash)}"
  }
}
