package com.hx.spark.sql.connector.aof.files.listing

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

class ClosestNamesSuite extends AnyFunSuite {
  test("a regex read as the text it matches most plainly") {
    val table = Seq(
      "app\\.log" -> "app.log",
      "app\\.log.*" -> "app.log",
      ".*\\.log" -> ".log",
      "access-[0-9]+\\.log" -> "access-.log",
      "(app|web)\\.log" -> "appweb.log",
      "\\Qa.b\\E" -> "a.b"
    )
    assert(table.map { case (regex, _) => regex -> ClosestNames.asText(regex) } === table)
  }

  test("the files closest to the regex, first by edit distance, a few only") {
    val dir = Files.createTempDirectory("closest-")
    try {
      Seq("App.log", "notes.txt", "app.log.txt", "server-errors.out", "application.log").foreach {
        name =>
          Files.write(dir.resolve(name), "a\n".getBytes(UTF_8))
      }
      Files.createDirectory(dir.resolve("app.log.d")) // a directory: never a file to read
      val files = SourceFiles(dir, "app\\.log")
      val closest = ClosestNames.of(files, new FileListing(files))
      assert(closest === Seq("App.log", "app.log.txt", "application.log").map(n => s"$dir/$n"))
      assert(
        ClosestNames.of(SourceFiles(dir.resolve("gone"), ".*"), new FileListing(files)) === Nil)
    } finally {
      Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(Files.deleteIfExists(_))
    }
  }
}
