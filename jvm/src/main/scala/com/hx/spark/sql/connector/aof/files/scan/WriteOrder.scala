package com.hx.spark.sql.connector.aof.files.scan

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, FileStamp}

/**
 * The order of a node's answer: oldest write first, a copy before a file written in the same tick
 * of the file clock (the file copytruncate cut), then the listing's order. Files new to the
 * planner get their serials in this order, and a batch reads a host's files by serial: in the
 * order they were written.
 *
 * The files a look took as the last one answered them ([[KeptDirectories]]) come first, as they
 * are: tracked files that keep their heads, which get no serial, so their place orders nothing.
 * Among 20,000 quiet files, a look sorts the few it found afresh, not every one.
 */
private[files] object WriteOrder {

  /**
   * `metas` in write order, each written when its stamp says (first, without one), but for the
   * first `asKept`, which stay first and as they are.
   */
  def of(
      metas: Seq[FileMeta],
      stampOf: FileKey => Option[FileStamp],
      asKept: Int): Seq[FileMeta] = {
    val (kept, others) = metas.splitAt(asKept)
    kept ++ sorted(others, stampOf)
  }

  private def sorted(metas: Seq[FileMeta], stampOf: FileKey => Option[FileStamp]) = {
    // Each file's place found once: a sort asks at every comparison, 15 times a file at 20,000.
    val places = metas.map { m =>
      val written = stampOf(m.key).fold(0L)(_.modifiedNanos)
      Place(written, m.copyOf.nonEmpty || m.copyOfRetired.nonEmpty, m)
    }
    places.sorted(ByPlace).map(_.meta)
  }

  // A file's place: its last write, and whether it is a copy (unboxed, unlike a tuple's).
  private final case class Place(written: Long, copy: Boolean, meta: FileMeta)

  private val ByPlace: Ordering[Place] = new Ordering[Place] {
    override def compare(a: Place, b: Place): Int = {
      val byWrite = java.lang.Long.compare(a.written, b.written)
      if (byWrite != 0) byWrite else java.lang.Boolean.compare(b.copy, a.copy)
    }
  }
}
