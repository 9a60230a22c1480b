package com.hx.spark.sql.connector.aof.files.scan

import java.io.IOException
import java.nio.channels.FileChannel
import java.nio.file.{Path, Paths, StandardOpenOption}

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.compression.{Compression, Decompressed}
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, FileStamp}
import com.hx.spark.sql.connector.aof.files.lines.LineReader
import com.hx.spark.sql.connector.aof.files.records.RecordRule

/**
 * A container runtime's log renamed by a rotation between two chunks of a long line (or inside a
 * multi-line record), and the file the runtime then reopened under its name, whose first lines
 * hold the rest. Read on their
 * own, each would give a part of the message as a row. So the renamed file is read only to where
 * its open messages start, and the file written next from its start after those lines, as one
 * ([[RecordEnds]]' `lead`): the message is one row, at its first chunk's offset in the renamed
 * file.
 *
 * The file written next is told by name and by the runtime's times, as rotations name files: of
 * the files named as the renamed one was (`0.log`) or as that name and a suffix
 * (`0.log.20261128-100000`, `<id>-json.log.1`, compressed or not), the one whose first line's time
 * comes next after the renamed file's last. Two rotations between two looks chain: each renamed
 * file is read after the one before it. They are joined only while the next file has bytes and
 * is read from its start. Otherwise (no file written next, two as early, one read on already)
 * the renamed file's last messages are complete once it is quiet for `multiline.flush.timeout`,
 * as any file's are.
 */
private[files] final class RuntimeReopens(rule: RecordRule, describer: FileDescriber) {

  /**
   * The look's files with each renamed file read to its open messages, and the file written next
   * described as read after them; `openFrom` removed, which only the node uses.
   *
   * @param compressed whether a file is compressed; None for one not known to be read
   * @param floor   where the driver reads a file from: its position, or 0 for a file it does not
   *                track (or tracks under a key another file now has)
   */
  def joined(
      metas: Seq[FileMeta],
      stamps: FileKey => Option[FileStamp],
      compressed: FileKey => Option[Boolean],
      floor: FileMeta => Long): Seq[FileMeta] = {
    val readable =
      metas.filter(m => m.unreadable.isEmpty && m.size > 0 && compressed(m.key).nonEmpty)
    // Only a file named as another and a suffix is read here: most have no such name.
    val renamed = readable
      .flatMap(m => m.openFrom.filter(floor(m) <= _).flatMap(_ => RuntimeReopens.base(m, metas)))
    val joined = if (renamed.isEmpty) metas else joinedAll(metas, renamed, stamps, readable, floor)
    joined.map(m => if (m.openFrom.isEmpty) m else m.copy(openFrom = None))
  }

  /** Each renamed file (with the file of the name it had) joined with the one written next. */
  private def joinedAll(
      metas: Seq[FileMeta],
      renamed: Seq[(FileMeta, FileMeta)],
      stamps: FileKey => Option[FileStamp],
      readable: Seq[FileMeta],
      floor: FileMeta => Long): Seq[FileMeta] = {
    val firstTimes = mutable.Map.empty[FileKey, Long]
    val firstTime = (m: FileMeta) => firstTimes.getOrElseUpdate(m.key, lastTime(m, 0L, 1))
    val now = mutable.LinkedHashMap(metas.map(m => m.key -> m): _*)
    // In the order written: a file renamed in turn is described as read after the one before.
    renamed.sortBy(r => firstTime(r._1)).foreach { case (first, base) =>
      val r = now(first.key)
      for {
        from <- r.openFrom
        last = lastTime(r, from, Int.MaxValue)
        next <- RuntimeReopens.next(r, base, last, readable, firstTime)
        if floor(next) == 0L
        stamp <- stamps(next.key)
        (read, continued) <- join(r, from, now(next.key), stamp)
      } {
        now(read.key) = read
        now(continued.key) = continued
      }
    }
    now.values.toList
  }

  /** The renamed file read to `from`, and the one written next described after its lines. */
  private def join(
      renamed: FileMeta,
      from: Long,
      next: FileMeta,
      stamp: FileStamp): Option[(FileMeta, FileMeta)] =
    opened(renamed).flatMap { before =>
      try
        opened(next).map { after =>
          try {
            val lead = new LineReader(before, from, renamed.size, rule.lineLimit, 64 * 1024)
            val ends = describer.recordEnds(after, stamp, 0L, next.size, rule, None, Some(lead))
            val read = renamed.copy(
              lineEnd = from,
              cuts = renamed.cuts.filter(_ < from),
              tailAtLineEnd = describer.tail(before, from))
            val continued = next.copy(
              lineEnd = ends.recordEnd,
              cuts = ends.cuts,
              tailAtLineEnd = describer.tail(after, ends.recordEnd),
              continues = Some(renamed.key),
              // Where its own open messages start, if it was renamed in turn: never its start,
              // whose bytes this file's first range reads after the file it continues.
              openFrom = ends.openFrom.filter(_ > 0L)
            )
            read -> continued
          } finally after.close()
        }
      finally before.close()
    }

  /**
   * The runtime's time of the last of the file's first `lines` lines from `from` that has one;
   * Long.MinValue when none has (or the file cannot be read now).
   */
  private def lastTime(m: FileMeta, from: Long, lines: Int): Long =
    opened(m).fold(Long.MinValue) { channel =>
      try {
        val reader = new LineReader(channel, from, m.size, rule.lineLimit, 64 * 1024)
        val chunks = rule.format.parser()
        var time = Long.MinValue
        var n = 0
        while (n < lines && reader.next()) {
          if (chunks.parse(reader.lineBytes, reader.lineStart, reader.lineLength)) {
            time = chunks.timeMicros
          }
          n += 1
        }
        time
      } finally channel.close()
    }

  /**
   * The file open, as the lines it holds (a compressed file's decompressed), if its name still is
   * its key's: a rotation may have renamed it since.
   */
  private def opened(m: FileMeta): Option[FileChannel] = {
    val path = Paths.get(m.path)
    try {
      val channel = FileChannel.open(path, StandardOpenOption.READ)
      val lines =
        if (FileKey.of(path) != m.key) None
        else
          Compression.of(channel) match {
            case None => Some(channel)
            case Some(f) if Compression.decompresses(f) => Some(Decompressed.open(channel, f))
            case Some(_) => None
          }
      if (!lines.contains(channel)) channel.close()
      lines.filter(_.size() >= m.size).orElse {
        lines.foreach(_.close())
        None
      }
    } catch { case _: IOException => None }
  }
}

private[files] object RuntimeReopens {

  /**
   * `renamed` with the file named as it was before its rotation: the longest name in its
   * directory that its name extends (`0.log` for `0.log.20261128-100000`); None when there is none.
   */
  def base(renamed: FileMeta, all: Seq[FileMeta]): Option[(FileMeta, FileMeta)] =
    all.filter(namedAfter(renamed, _)).sortBy(o => -name(o).length).headOption.map(renamed -> _)

  /**
   * The file the runtime wrote after `renamed`, whose last line's time is `lastTime`: of the
   * `readable` files named as `base` or as that name and a suffix, not a copy, the one whose
   * first line's time is the earliest not before it. None when two are as early: which came
   * first cannot be told.
   */
  def next(
      renamed: FileMeta,
      base: FileMeta,
      lastTime: Long,
      readable: Seq[FileMeta],
      firstTime: FileMeta => Long): Option[FileMeta] = {
    val later = readable
      .filter(m => m.key != renamed.key && (m.key == base.key || namedAfter(m, base)))
      .filter(m => m.copyOf.isEmpty && m.copyOfRetired.isEmpty && !m.ignored)
      .filter(m => lastTime > Long.MinValue && firstTime(m) >= lastTime)
      .sortBy(firstTime)
    later.headOption.filterNot(n => later.drop(1).headOption.exists(firstTime(_) == firstTime(n)))
  }

  /** Whether `m`'s name is `base`'s and a suffix, in the same directory. */
  private def namedAfter(m: FileMeta, base: FileMeta): Boolean =
    parent(m) == parent(base) && name(m).length > name(base).length &&
      name(m).startsWith(name(base))

  private def parent(m: FileMeta): Option[Path] = Option(Paths.get(m.path).getParent)

  private def name(m: FileMeta): String = Paths.get(m.path).getFileName.toString
}
