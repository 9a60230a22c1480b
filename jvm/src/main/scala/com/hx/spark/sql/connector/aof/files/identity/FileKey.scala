package com.hx.spark.sql.connector.aof.files.identity

import java.nio.file.{Files, LinkOption, Path}

/** Where a file's bytes live: the same key under another name is the same file (renamed). */
final case class FileKey(dev: Long, ino: Long) {
  // Once: a look asks it of each of thousands of keys several times (the case class's would box
  // both fields each time).
  override val hashCode: Int = 31 * java.lang.Long.hashCode(dev) + java.lang.Long.hashCode(ino)
}

object FileKey {
  def of(path: Path): FileKey = {
    val attrs = Files.readAttributes(path, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS)
    FileKey(
      attrs.get("dev").asInstanceOf[Number].longValue,
      attrs.get("ino").asInstanceOf[Number].longValue)
  }
}
