package com.hx.spark.sql.connector.aof.journal

import java.nio.channels.FileChannel
import java.nio.file.{Files, NoSuchFileException, Path, StandardOpenOption}
import java.nio.file.LinkOption.NOFOLLOW_LINKS

import com.hx.spark.sql.connector.aof.files.listing.{FileListing, SourceFiles}

/**
 * One of journald's sequences on a node, as its files show it now: the entries numbered `head`
 * to `tail` that journald has not removed, in `files` (each with its header as read), live and
 * archived, oldest first. journald numbers the entries it writes in a sequence that a rotation
 * carries on into the next file, so an entry's number stays its place whichever file holds it: a
 * sequence is what a file is to the rest of the source, and an entry's number its offset. (Its
 * user files start sequences of their own, in systemd before 256, with numbers that the system
 * file's entries also take from.)
 */
final case class JournalSequence(
    seqnumId: String,
    head: Long,
    tail: Long,
    files: Seq[(Path, JournalHeader)])

object JournalSequence {

  /**
   * The journal files the source reads: those `files` names, as a node's look and a read task
   * list them ([[FileListing]]): the `.journal` files of `/var/log/journal/<machine-id>`, say, with
   * the `.journal~` files journald found unclean and set aside, whose entries are still its.
   */
  def listed(files: SourceFiles): Seq[Path] = {
    val listing = new FileListing(files)
    files
      .directories()
      .flatMap { d =>
        listing
          .in(d.path, fromPattern = !d.literal)
          .filter(p => d.readBy(p, files).nonEmpty && Files.isRegularFile(p, NOFOLLOW_LINKS))
      }
      .distinct
  }

  /**
   * The sequences the journal files `paths` hold, each with its files in the order journald
   * wrote them. A file gone, or whose header journald has not written yet, is passed over: the
   * next look finds it whole.
   */
  def of(paths: Seq[Path]): Seq[JournalSequence] =
    paths
      .flatMap(p => headerOf(p).map(p -> _))
      .groupBy(_._2.seqnumId)
      .toSeq
      .flatMap { case (id, held) =>
        val counted = held.map(_._2).filter(_.nEntries > 0)
        val files = held.sortBy { case (p, h) => (h.tailSeqnum, p.toString) }
        if (counted.isEmpty) None
        else
          Some(
            JournalSequence(
              id,
              counted.map(_.headSeqnum).min,
              counted.map(_.tailSeqnum).max,
              files))
      }
      .sortBy(_.seqnumId)

  /**
   * A file's header, or nothing when the file is gone or journald has not written its header yet
   * (it creates the file, then writes it). A file that cannot be read, or is not a journal this
   * source reads, is an error that names it.
   */
  def headerOf(path: Path): Option[JournalHeader] =
    try {
      val channel = FileChannel.open(path, StandardOpenOption.READ)
      try {
        if (channel.size() < JournalHeader.MinSize) None
        else Some(JournalHeader.read(channel, path.toString))
      } finally channel.close()
    } catch {
      case _: NoSuchFileException => None
    }
}
