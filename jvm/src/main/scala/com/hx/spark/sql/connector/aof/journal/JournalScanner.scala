package com.hx.spark.sql.connector.aof.journal

import java.io.IOException
import java.nio.file.{FileSystemException, Files, Path}

import scala.util.Try

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, Fingerprint, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.{FileListing, SourceFiles, UnlistedDirectory}
import com.hx.spark.sql.connector.aof.files.scan.NodeScanner

/**
 * A node's look at its journal (`format` `journald`): each sequence of the journal files the
 * paths name ([[JournalSequence]]) reported as a file whose bytes are the sequence's numbers,
 * from its oldest entry kept (`start`) to just after its newest (`size`), all complete: so the
 * planner plans a sequence as it plans a file, and a rotation, which carries the sequence on
 * into a new file, changes nothing it sees. Only headers are read.
 */
final class JournalScanner(files: SourceFiles) extends NodeScanner {
  private val listing = new FileListing(files)
  @volatile private var looks = 0L

  override def scan(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Set[FileKey]): Seq[FileMeta] = synchronized {
    looks += 1
    try JournalSequence.of(JournalSequence.listed(files)).map(JournalScanner.meta)
    catch {
      // Its sequences are unknown then: the driver keeps their offsets, and says why.
      case e: FileSystemException =>
        throw new UnlistedDirectory(s"${e.getFile} cannot be read (${FileListing.reason(e)})")
      case e: IOException if !e.isInstanceOf[UnlistedDirectory] =>
        throw new UnlistedDirectory(e.getMessage) // a journal's errors name its file
    }
  }

  override def ignored: Int = 0
  override def removedByLastScan: Seq[FileKey] = Nil
  override def notRemovedByLastScan: Int = 0
  override def nextSettlingMs: Option[Long] = None
  override def wholeListings: Long = looks // every look lists every directory
  override def unreadFiles: Iterator[Path] = Iterator.empty
  override def directoryExists: Boolean = listing.directoryExists
}

object JournalScanner {

  /** The key a sequence is tracked by: its 128-bit id. */
  def key(seqnumId: String): FileKey = FileKey(
    java.lang.Long.parseUnsignedLong(seqnumId.substring(0, 16), 16),
    java.lang.Long.parseUnsignedLong(seqnumId.substring(16), 16))

  /** The sequence a key names, as [[key]] made it. */
  def seqnumId(key: FileKey): String = f"${key.dev}%016x${key.ino}%016x"

  /** A sequence as the planner sees a file: entry numbers for bytes, each entry one byte. */
  def meta(s: JournalSequence): FileMeta = {
    val newest = s.files.last._1
    FileMeta(
      path = newest.toString,
      key = key(s.seqnumId),
      size = s.tail + 1,
      lineEnd = s.tail + 1,
      fingerprint = Fingerprint.Empty,
      probe = None,
      modifiedMs = Try(Files.getLastModifiedTime(newest).toMillis).getOrElse(0L),
      start = s.head
    )
  }
}
