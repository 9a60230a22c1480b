package com.hx.spark.sql.connector.aof.files.identity

import java.nio.file.{Files, LinkOption, Path}

/**
 * A file's key with its size and change times, from one `stat`: while all of them stay the same
 * the file holds the same bytes, so what was computed from them can be reused. `regular` is
 * false for a directory, a device, and a symbolic link, which is not followed.
 */
final case class FileStamp(
    key: FileKey,
    size: Long,
    modifiedNanos: Long,
    changedNanos: Long,
    regular: Boolean) {

  /** Milliseconds from the file's last write or change to `nowMs` (the epoch's, as file times). */
  def quietMs(nowMs: Long): Long = nowMs - math.max(modifiedNanos, changedNanos) / 1000000L

  /** The last write, in the epoch's milliseconds. */
  def modifiedMs: Long = modifiedNanos / 1000000L
}

object FileStamp {
  // st_mode's file type bits (S_IFMT) and the value for a regular file (S_IFREG).
  private val FileType = 0xf000
  private val RegularFile = 0x8000

  def of(path: Path): FileStamp = read(path, LinkOption.NOFOLLOW_LINKS)

  /** The stamp of what `path` leads to, through symbolic links. */
  def ofTarget(path: Path): FileStamp = read(path)

  private def read(path: Path, options: LinkOption*): FileStamp = {
    val attrs =
      Files.readAttributes(path, "unix:dev,ino,size,lastModifiedTime,ctime,mode", options: _*)
    def nanos(name: String): Long = attrs.get(name) match {
      case t: java.nio.file.attribute.FileTime => t.to(java.util.concurrent.TimeUnit.NANOSECONDS)
      case _ => -1L
    }
    FileStamp(
      FileKey(
        attrs.get("dev").asInstanceOf[Number].longValue,
        attrs.get("ino").asInstanceOf[Number].longValue),
      attrs.get("size").asInstanceOf[Number].longValue,
      nanos("lastModifiedTime"),
      nanos("ctime"),
      (attrs.get("mode").asInstanceOf[Number].intValue & FileType) == RegularFile
    )
  }
}
