package com.hx.spark.sql.connector.aof.journal

import java.io.IOException
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.US_ASCII

/**
 * What a journal file's header says of it: systemd's journal file format
 * (https://systemd.io/JOURNAL_FILE_FORMAT/), the fields this source reads.
 *
 * @param seqnumId   the sequence its entries' numbers belong to (hex): journald's files share one
 *                   until it starts a new sequence, so (seqnumId, seqnum) names an entry whichever
 *                   file holds it, live or archived
 * @param nEntries   the entries the file held when the header was read: a live file's entries
 *                   after those are read at the next opening
 * @param entryArrayOffset where the chain of arrays listing every entry in order starts (0: none)
 * @param compact    whether offsets in entries and arrays take 4 bytes (systemd 252's default)
 */
final case class JournalHeader(
    seqnumId: String,
    state: JournalHeader.State,
    nEntries: Long,
    headSeqnum: Long,
    tailSeqnum: Long,
    entryArrayOffset: Long,
    compact: Boolean)

object JournalHeader {
  private val Signature = "LPKSHHRH"

  /** The header's fields up to `entry_array_offset`: every version of the format has them. */
  val MinSize: Int = 208

  sealed trait State

  /** A file journald has closed cleanly, and may open again to append to. */
  case object Offline extends State

  /** A file journald has open: it grows while it is read. */
  case object Online extends State

  /** A file journald rotated away: it never changes again. */
  case object Archived extends State

  // The incompatible flags this reader knows: anything else changes the layout it reads.
  private val CompressedXz = 1 << 0
  private val CompressedLz4 = 1 << 1
  private val KeyedHash = 1 << 2
  private val CompressedZstd = 1 << 3
  private val Compact = 1 << 4
  private val Known = CompressedXz | CompressedLz4 | KeyedHash | CompressedZstd | Compact

  /** Reads the header of the file open on `channel`; `name` says which file an error is of. */
  def read(channel: FileChannel, name: String): JournalHeader = {
    val head = ByteBuffer.allocate(MinSize)
    while (head.hasRemaining && channel.read(head, head.position().toLong) >= 0) ()
    head.flip()
    parse(head, name)
  }

  /** Reads the header from the file's first bytes; `name` says which file an error is of. */
  def parse(bytes: ByteBuffer, name: String): JournalHeader = {
    val b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN)
    if (b.remaining() < MinSize || !signed(b)) {
      throw new IOException(s"$name is not a systemd journal file (no LPKSHHRH header)")
    }
    val incompatible = b.getInt(12)
    if ((incompatible & ~Known) != 0) {
      throw new IOException(
        f"$name uses journal features this source cannot read (incompatible flags " +
          f"0x$incompatible%x): read it with journalctl, or a newer version of this source")
    }
    val state = b.get(16) match {
      case 0 => Offline
      case 1 => Online
      case 2 => Archived
      case other => throw new IOException(s"$name has an unknown journal state $other")
    }
    JournalHeader(
      seqnumId = hex(b, 72),
      state = state,
      nEntries = b.getLong(152),
      tailSeqnum = b.getLong(160),
      headSeqnum = b.getLong(168),
      entryArrayOffset = b.getLong(176),
      compact = (incompatible & Compact) != 0
    )
  }

  private def signed(b: ByteBuffer): Boolean =
    Signature.getBytes(US_ASCII).zipWithIndex.forall { case (c, i) => b.get(i) == c }

  /** A 128-bit id as journalctl prints it: 32 lower-case hex digits. */
  def hex(b: ByteBuffer, at: Int): String = {
    // Once an entry, for its boot: a formatter per byte cost more than the rest of the entry.
    val chars = new Array[Char](32)
    var i = 0
    while (i < 16) {
      val v = b.get(at + i) & 0xff
      chars(2 * i) = Digits(v >>> 4)
      chars(2 * i + 1) = Digits(v & 0xf)
      i += 1
    }
    new String(chars)
  }

  private val Digits = "0123456789abcdef".toCharArray
}
