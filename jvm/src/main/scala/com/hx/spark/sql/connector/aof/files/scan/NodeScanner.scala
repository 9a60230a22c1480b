package com.hx.spark.sql.connector.aof.files.scan

import java.nio.file.Path

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}

/**
 * A node's look at what the source reads there, as its endpoint asks it: the files of its
 * directories ([[DirectoryScanner]]), or the sequences of its journal (`format` `journald`).
 */
trait NodeScanner {

  /**
   * What to report, given what the driver tracks on this node (`known`), what it retired (by
   * file id), and the files `cleanup` may remove.
   */
  def scan(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile] = Map.empty,
      remove: Set[FileKey] = Set.empty): Seq[FileMeta]

  /** How many files the last scan left unread for `ignore.older`. */
  def ignored: Int

  /** The files `cleanup` removed in the last scan. */
  def removedByLastScan: Seq[FileKey]

  /** How many files `cleanup` tried to remove in the last scan and could not. */
  def notRemovedByLastScan: Int

  /** How long until a look would say more of a file that settles, if none is written. */
  def nextSettlingMs: Option[Long]

  /** The listings of every directory so far. */
  def wholeListings: Long

  /** The regular files the looks found that the source does not read. */
  def unreadFiles: Iterator[Path]

  /** Whether a path's directory (where its wildcards start) is there: else nothing, yet. */
  def directoryExists: Boolean
}
