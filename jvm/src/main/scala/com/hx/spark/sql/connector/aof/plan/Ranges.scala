package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.offset.AofOffset

/**
 * The byte ranges a micro-batch reads, from its two offsets alone, so that a replayed batch
 * reads exactly what it read the first time.
 */
object Ranges {

  /**
   * @param partitionBytesMax longer ranges are cut into pieces of this size; the line reader
   *                          gives each line to the piece holding its first byte
   */
  def between(start: AofOffset, end: AofOffset, partitionBytesMax: Long): Seq[FileRange] =
    for {
      (host, offsets) <- end.hosts.toSeq.sortBy(_._1)
      file <- offsets.files.values.toSeq.sortBy(_.fileId)
      from = start.file(host, file.fileId).fold(file.first)(_.pos)
      pieceStart <- from until file.pos by partitionBytesMax
    } yield FileRange(
      host,
      file.path,
      file.key,
      file.fileId,
      pieceStart,
      math.min(file.pos, pieceStart + partitionBytesMax),
      file.fingerprint)
}
