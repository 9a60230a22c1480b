package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.offset.AofOffset

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
      (host, offsets) <- end.hosts.toSeq.sortBy(_._1)
      file <- offsets.files.values.toSeq.sortBy(f => (f.serial, f.fileId))
      from = start.file(host, file.fileId).fold(file.first)(_.pos)
      if from < file.pos
    } yield FileRange(host, file.path, file.key, file.fileId, from, file.pos, file.fingerprint)
}
