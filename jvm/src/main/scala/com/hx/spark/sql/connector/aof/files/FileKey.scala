package com.hx.spark.sql.connector.aof.files

import java.nio.file.{Files, LinkOption, Path}

/** Where a file's bytes live: the same key under another name is the same file (renamed). */
final case class FileKey(dev: Long, ino: Long)

object FileKey {
  def of(path: Path): FileKey = {
    val attrs = Files.readAttributes(path, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS)
    FileKey(
      attrs.get("dev").asInstanceOf[Number].longValue,
      attrs.get("ino").asInstanceOf[Number].longValue)
  }
}
