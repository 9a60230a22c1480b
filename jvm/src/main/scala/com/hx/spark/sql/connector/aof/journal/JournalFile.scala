package com.hx.spark.sql.connector.aof.journal

import java.io.{Closeable, IOException}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Path, StandardOpenOption}

/**
 * A journal file read in place, in the order its entries were written, as far as its header
 * counted them when opened: journald appends objects, links a new entry into the arrays, and only
 * then counts it in the header, so every entry counted is whole. Nothing is trusted for an offset
 * or a size: each object is checked to lie inside the file and to be of the type that points at
 * it, and a file that breaks that is named in the error.
 */
final class JournalFile private (channel: FileChannel, name: String, val header: JournalHeader)
    extends Closeable {
  import JournalFile._

  private val fileSize = channel.size()
  private val itemSize = if (header.compact) 4 else 8
  // Read through a map of the file as it was when opened (journald only appends), where the file
  // fits one: an entry is read field by field, and a syscall per object cost more than the rest.
  private val mapped: Option[ByteBuffer] =
    if (fileSize > Int.MaxValue) None
    else Some(channel.map(FileChannel.MapMode.READ_ONLY, 0, fileSize))
  // Most entries of a node repeat most of their fields (`_SYSTEMD_UNIT`, `_HOSTNAME`, ...): each
  // field is decoded once, as long as no other field's offset takes its slot since.
  private val decodedAt = new Array[Long](FieldsKept)
  private val decoded = new Array[(String, Array[Byte])](FieldsKept)

  /**
   * The entries numbered after `afterSeqnum`, in order, of those the header counted: an array
   * whose last entry is not after it is passed over whole. Each array read takes at least one
   * counted entry and starts after the last one ended, so a chain that loops is a corrupt file.
   */
  def entries(afterSeqnum: Long = 0L): Iterator[JournalEntry] = {
    var left = header.nEntries
    var next = header.entryArrayOffset
    var last = 0L
    Iterator.continually(next).takeWhile(at => left > 0 && at != 0L).flatMap { at =>
      val array = objectAt(at, EntryArrayType)
      next = array.getLong(16)
      val offsets = entryOffsets(array).take(math.min(left, Int.MaxValue).toInt)
      if (offsets.isEmpty) corrupt(at, s"an empty entry array where $left entries are counted")
      if (seqnumAt(offsets.head) <= last) corrupt(at, s"an entry array going back before $last")
      left -= offsets.size
      last = seqnumAt(offsets.last)
      if (last <= afterSeqnum) Iterator.empty
      else offsets.iterator.map(entryAt).filter(_.seqnum > afterSeqnum)
    }
  }

  override def close(): Unit = channel.close()

  /** The entries an array lists: its items up to the first empty one. */
  private def entryOffsets(array: ByteBuffer): IndexedSeq[Long] = {
    val n = (array.limit() - ArrayItems) / itemSize
    (0 until n).iterator
      .map(i => offsetAt(array, ArrayItems, i, itemSize))
      .takeWhile(_ != 0L)
      .toIndexedSeq
  }

  /** The `i`th offset of the items from `from`, each `step` bytes (its first 4 when compact). */
  private def offsetAt(b: ByteBuffer, from: Int, i: Int, step: Int): Long =
    if (header.compact) b.getInt(from + step * i) & 0xffffffffL else b.getLong(from + step * i)

  private def seqnumAt(offset: Long): Long = objectAt(offset, EntryType).getLong(16)

  private def entryAt(offset: Long): JournalEntry = {
    val e = objectAt(offset, EntryType)
    // A regular item is an offset and a hash; a compact one only the offset.
    val step = if (header.compact) 4 else 16
    val values = (0 until (e.limit() - EntryItems) / step).map { i =>
      dataAt(offsetAt(e, EntryItems, i, step))
    }
    val bootId = JournalHeader.hex(e, 40)
    val (seqnum, realtime, monotonic) = (e.getLong(16), e.getLong(24), e.getLong(32))
    JournalEntry(header.seqnumId, seqnum, realtime, monotonic, bootId, e.getLong(56), values)
  }

  private def dataAt(offset: Long): (String, Array[Byte]) = {
    val slot = ((offset >>> 3) & (FieldsKept - 1)).toInt
    if (decodedAt(slot) == offset) decoded(slot)
    else {
      val field = decode(offset)
      decodedAt(slot) = offset
      decoded(slot) = field
      field
    }
  }

  private def decode(offset: Long): (String, Array[Byte]) = {
    val d = objectAt(offset, DataType)
    val start = if (header.compact) 72 else 64
    val stored = new Array[Byte](d.limit() - start)
    d.position(start)
    d.get(stored)
    val payload = JournalPayload.decompressed(stored, d.get(1).toInt, name)
    val eq = payload.indexOf('='.toByte)
    if (eq <= 0) corrupt(offset, "a field without a name")
    (new String(payload, 0, eq, UTF_8), payload.drop(eq + 1))
  }

  /** The object at `offset`, whole, once checked to be of `kind` and inside the file. */
  private def objectAt(offset: Long, kind: Int): ByteBuffer = {
    if (offset < JournalHeader.MinSize || offset % 8 != 0 || offset + ObjectHead > fileSize) {
      corrupt(offset, "an offset outside its objects")
    }
    val head = read(offset, ObjectHead)
    val size = head.getLong(8)
    if (head.get(0) != kind || size < minimumSize(kind) || size > fileSize - offset) {
      corrupt(offset, s"an object of type ${head.get(0)} and size $size where $kind was expected")
    }
    read(offset, size.toInt)
  }

  private def read(offset: Long, length: Int): ByteBuffer = mapped match {
    case Some(file) =>
      val view = file.duplicate()
      view.position(offset.toInt)
      view.limit(offset.toInt + length)
      view.slice().order(ByteOrder.LITTLE_ENDIAN)
    case None =>
      val b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN)
      while (b.hasRemaining) {
        if (channel.read(b, offset + b.position()) < 0) corrupt(offset, "an object cut short")
      }
      b.flip()
      b
  }

  private def minimumSize(kind: Int): Long = kind match {
    case DataType => if (header.compact) 72 else 64
    case EntryType => EntryItems
    case _ => ArrayItems
  }

  private def corrupt(offset: Long, what: String): Nothing =
    throw new IOException(s"$name: journal file corrupt at offset $offset: $what")
}

object JournalFile {
  private val DataType = 1
  private val EntryType = 3
  private val EntryArrayType = 6
  private val ObjectHead = 16
  private val EntryItems = 64
  private val ArrayItems = 24
  private val FieldsKept = 4096

  /** Opens a journal file to read; an error names it when it is not one this source reads. */
  def open(path: Path): JournalFile = {
    val channel = FileChannel.open(path, StandardOpenOption.READ)
    try {
      new JournalFile(channel, path.toString, JournalHeader.read(channel, path.toString))
    } catch {
      case e: Throwable =>
        channel.close()
        throw e
    }
  }
}
