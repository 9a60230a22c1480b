package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}
import java.util.Comparator

import scala.collection.mutable

import org.scalatest.{BeforeAndAfterAll, Suite}

/** Temporary directories of a suite, removed with all they hold after it. */
trait TempDirectories extends BeforeAndAfterAll { self: Suite =>
  private val made = mutable.ListBuffer.empty[Path]

  protected def tempDirectory(prefix: String): Path = synchronized {
    val dir = Files.createTempDirectory(prefix)
    made += dir
    dir
  }

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally synchronized(made.foreach(TempDirectories.delete))
}

object TempDirectories {

  /** Removes `dir` and everything in it. */
  def delete(dir: Path): Unit =
    if (Files.exists(dir)) {
      val walk = Files.walk(dir)
      try walk.sorted(Comparator.reverseOrder[Path]()).forEach(p => Files.deleteIfExists(p))
      finally walk.close()
    }
}
