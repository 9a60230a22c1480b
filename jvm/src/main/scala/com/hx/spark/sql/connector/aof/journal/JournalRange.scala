package com.hx.spark.sql.connector.aof.journal

import java.io.Closeable
import java.nio.file.Path

import scala.collection.BufferedIterator
import scala.collection.mutable

/**
 * The entries of sequence `seqnumId` numbered from `from` until `until`, as the journal `files`
 * hold them now, in the order journald numbered them: merged across its system and user
 * files, live and archived, so a rotation between planning and reading changes nothing.
 *
 * journald removes a sequence's oldest files first (its vacuum); the numbers of the range below
 * the oldest it still holds are `lost`, as is the whole range once no file holds the sequence.
 * A number missing among those it holds is one journald never stored, not a loss.
 */
final class JournalRange(files: Seq[Path], seqnumId: String, from: Long, until: Long)
    extends Iterator[JournalEntry]
    with Closeable {
  private val sequence = JournalSequence.of(files).find(_.seqnumId == seqnumId)

  /** The range's entries journald removed before they were read. */
  val lost: Long = sequence.fold(until - from)(s => math.max(0L, math.min(s.head, until) - from))

  private val opened = sequence.toSeq.flatMap(_.files).collect {
    case (p, h) if h.nEntries > 0 && h.tailSeqnum >= from && h.headSeqnum < until =>
      p -> JournalFile.open(p)
  }
  private val heads = mutable.PriorityQueue.empty[(Path, BufferedIterator[JournalEntry])](
    Ordering.by[(Path, BufferedIterator[JournalEntry]), Long](_._2.head.seqnum).reverse)
  opened.foreach { case (p, f) =>
    val entries = f.entries(from - 1).takeWhile(_.seqnum < until).buffered
    if (entries.hasNext) heads.enqueue(p -> entries)
  }
  private var last = from - 1
  private var lastFile: Option[Path] = None

  /** The file the entry `next` gave last was read from. */
  def file: Path = lastFile.get

  override def hasNext: Boolean = {
    // The same entry in two files (journald's copy of an unclean file) is given once.
    while (heads.nonEmpty && heads.head._2.head.seqnum <= last) advance()
    heads.nonEmpty
  }

  override def next(): JournalEntry = {
    if (!hasNext) throw new NoSuchElementException(s"journal $seqnumId after $last")
    val (path, entries) = heads.head
    val entry = entries.head
    last = entry.seqnum
    lastFile = Some(path)
    advance()
    entry
  }

  private def advance(): Unit = {
    val (path, entries) = heads.dequeue()
    entries.next()
    if (entries.hasNext) heads.enqueue(path -> entries)
  }

  override def close(): Unit = opened.foreach(_._2.close())
}
