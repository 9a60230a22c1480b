package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset}

/**
 * The byte ranges a micro-batch reads, from its two offsets alone, so that a replayed batch
 * reads exactly what it read the first time.
 */
object Ranges {

  /**
   * One range per file that has bytes to read; [[Tasks]] cuts them into tasks. A host's files
   * come in the order they were found (their serials): after a rotation the rest of the old
   * file comes before the new file's lines, as they were written.
   */
  def between(start: AofOffset, end: AofOffset): Seq[FileRange] =
    for {
      // A host whose offsets are the start's very object has nothing to read.
      (host, offsets) <- end.hosts.toSeq
        .filterNot(h => start.hosts.get(h._1).exists(_ eq h._2))
        .sortBy(_._1)
      // Only the files a plan changed, when it made these offsets from the start's: the others
      // are where they started, and a tail is read in the batch that planned its continuation.
      files = start.hosts
        .get(host)
        .flatMap(offsets.changedSince)
        .fold(offsets.files.values.toSeq)(_.toSeq.flatMap(offsets.files.get))
      tails = files.flatMap(_.continues).map(t => t.fileId -> t.from).toMap
      // Sorted once the files with bytes to read are found: of thousands, a batch reads a few.
      (file, from, until) <- files
        .flatMap { file =>
          val from = start.file(host, file.fileId).fold(file.first)(_.pos)
          // A file's open tail is read by the file that continues it, in the batch that moved
          // past it.
          val until = tails.get(file.fileId).filter(from <= _).getOrElse(file.pos)
          if (from < until) Some((file, from, until)) else None
        }
        .sortBy { case (f, _, _) => (f.serial, f.fileId) }
    } yield {
      val continued = file.continues.filter(_ => from == 0L).flatMap { t =>
        offsets.files.get(t.fileId).map(p => range(host, p, t.from, p.pos))
      }
      range(host, file, from, until).copy(continues = continued)
    }

  /** The bytes a micro-batch from `start` to `end` reads: its ranges', the tails they read too. */
  def bytes(start: AofOffset, end: AofOffset): Long =
    between(start, end).map(r => r.until - r.from + r.continues.fold(0L)(t => t.until - t.from)).sum

  private def range(host: String, file: FileOffset, from: Long, until: Long): FileRange =
    FileRange(host, file.path, file.key, file.fileId, from, until, file.fingerprint)
}
