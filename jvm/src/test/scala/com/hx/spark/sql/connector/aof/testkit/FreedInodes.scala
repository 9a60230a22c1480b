package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.Path

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileStamp}

/**
 * Files given the key of another, freed one: ext4 hands a freed inode out again soon, but not on
 * demand (on a busy machine another file gets it first), so a scanner's stat is told.
 */
final class FreedInodes {
  @volatile private var reused = Map.empty[FileKey, FileKey]

  def give(file: Path, key: FileKey): Unit = reused += FileKey.of(file) -> key

  def stat(path: Path): FileStamp = {
    val stamp = FileStamp.of(path)
    stamp.copy(key = reused.getOrElse(stamp.key, stamp.key))
  }
}
