package com.hx.spark.sql.connector.aof.files.scan

import java.io.IOException
import java.nio.channels.FileChannel
import java.nio.file.{Path, StandardOpenOption}
import java.time.Clock

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.compression.Decompressed
import com.hx.spark.sql.connector.aof.files.identity.{
  FileKey, FileMeta, FileStamp, Fingerprint, NodeRequest
}

/**
 * `ignore.older` on a node: which files not tracked have gone unmodified too long to be read. A
 * plain one is still described, and reported `ignored`; a compressed file is left out unless its
 * head is that of a tracked or retired file. Compressors keep a file's modification time, so the
 * compressed rotation of a file still being read looks old, and it must still be read as a copy.
 *
 * @param limitMs the option's value; None leaves every file to be read
 */
private[files] final class OldFiles(
    limitMs: Option[Long],
    sampleLength: Int,
    clock: Clock,
    stat: Path => FileStamp) {
  // The decompressed heads of compressed files left out, at which stamp.
  private val heads = mutable.Map.empty[FileKey, (FileStamp, Option[Fingerprint])]

  /** Whether the file has not been modified for the limit; a rename does not count. */
  def isOld(stamp: FileStamp): Boolean =
    limitMs.exists(limit => clock.millis() - stamp.modifiedNanos / 1000000L >= limit)

  /**
   * Whether the compressed file (of `format`) is left out: not tracked, old, and no copy of a
   * tracked or retired file as its head alone shows, decompressed without the rest. One shorter
   * than the sample is described, at little cost.
   */
  def leftOut(path: Path, stamp: FileStamp, format: String, request: NodeRequest): Boolean =
    !request.tracks(stamp.key) && isOld(stamp) && {
      val head = heads.get(stamp.key).collect { case (`stamp`, h) => h }.getOrElse {
        val read =
          try {
            val channel = FileChannel.open(path, StandardOpenOption.READ)
            try {
              if (stat(path).key != stamp.key) None
              else Decompressed.headMd5(channel, format, sampleLength.toLong)
            } finally channel.close()
          } catch { case _: IOException => None } // described, which says why
        heads(stamp.key) = (stamp, read)
        read
      }
      head.exists(h => !request.mayBeCopy(h))
    }

  /** `meta`, `ignored` when it is a file first seen, old, and no copy. */
  def judged(meta: FileMeta, stamp: FileStamp, tracked: Boolean): FileMeta = {
    val ignored = !tracked && isOld(stamp) && meta.unreadable.isEmpty &&
      meta.copyOf.isEmpty && meta.copyOfRetired.isEmpty
    if (meta.ignored == ignored) meta else meta.copy(ignored = ignored)
  }

  /** Forgets the heads of files not `kept`. */
  def keepOnly(kept: FileKey => Boolean): Unit = heads --= heads.keysIterator.filterNot(kept).toList
}
