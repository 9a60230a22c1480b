package com.hx.spark.sql.connector.aof.files.listing

import java.nio.file.Paths
import java.util.regex.Pattern

/**
 * One of a source's `path`s: a directory, which may hold wildcards ([[DirectoryGlob]]), and a
 * Java regex matched against whole file names in it.
 */
final case class PathPattern(directory: String, fileNameRegex: String) {
  @transient lazy val glob: DirectoryGlob = DirectoryGlob.of(Paths.get(directory))
  @transient lazy val names: Pattern = Pattern.compile(fileNameRegex)

  override def toString: String = s"${if (directory == "/") "" else directory}/$fileNameRegex"
}
