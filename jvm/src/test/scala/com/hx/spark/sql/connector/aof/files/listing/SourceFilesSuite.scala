package com.hx.spark.sql.connector.aof.files.listing

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.util.zip.GZIPOutputStream

import org.scalatest.LoneElement
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.testkit.TempDirectories

/** Which files a node reads: several paths, and what `exclude` leaves out. */
class SourceFilesSuite extends AnyFunSuite with LoneElement with TempDirectories {

  private def write(file: Path, text: String): Path = {
    Files.createDirectories(file.getParent)
    Files.write(file, text.getBytes(UTF_8))
  }

  private def gzip(file: Path, text: String): Path = {
    val bytes = new ByteArrayOutputStream()
    val out = new GZIPOutputStream(bytes)
    out.write(text.getBytes(UTF_8))
    out.close()
    Files.write(file, bytes.toByteArray)
  }

  private def names(dir: Path, metas: Seq[FileMeta]): Set[String] =
    metas.map(m => dir.relativize(Path.of(m.path)).toString).toSet

  test("several paths: each directory is read by its own regex, a file two paths match once") {
    val dir = tempDirectory("paths-")
    Seq("app/app.log", "app/app.log.1", "app/other.log", "web/access.log", "web/access.txt")
      .foreach(n => write(dir.resolve(n), s"$n\n"))
    val files = SourceFiles(
      Seq(
        PathPattern(s"$dir/app", "app\\.log.*"),
        PathPattern(s"$dir/*", ".*\\.log"), // app/ again, and web/
        PathPattern(s"$dir/app", "app\\.log")))
    assert(files.directories().map(_.path).sorted === Seq(dir.resolve("app"), dir.resolve("web")))
    val found = new DirectoryScanner(files, 1024).scan(Nil)
    assert(found.size === 4)
    assert(
      names(dir, found) === Set("app/app.log", "app/app.log.1", "app/other.log", "web/access.log"))
  }

  test("a literal directory of one path need not exist while another path's does") {
    val dir = tempDirectory("paths-")
    write(dir.resolve("web/access.log"), "a\n")
    val files =
      SourceFiles(Seq(PathPattern(s"$dir/nginx", ".*"), PathPattern(s"$dir/web", ".*\\.log")))
    val scanner = new DirectoryScanner(files, 1024)
    assert(names(dir, scanner.scan(Nil)) === Set("web/access.log"))
    assert(scanner.directoryExists)
    val neither = new DirectoryScanner(SourceFiles(Seq(PathPattern(s"$dir/nginx", ".*"))), 1024)
    assert(!neither.directoryExists)
  }

  test("exclude: a file it is found in is never looked at; one tracked is followed into it") {
    val dir = tempDirectory("exclude-")
    val live = write(dir.resolve("app.log"), "live\n")
    write(dir.resolve("debug/app.log"), "debug\n")
    gzip(dir.resolve("app.log.1.gz"), "old\n")
    val files = SourceFiles(Seq(PathPattern(s"$dir/**", "app\\.log.*")), Seq("\\.gz$", "/debug/"))
    val scanner = new DirectoryScanner(files, 1024)
    val first = scanner.scan(Nil).loneElement
    assert(first.path === live.toString)
    assert(scanner.decompressions === 0L)
    // Renamed to an excluded name while tracked: followed by its key, and only then.
    val renamed = Files.move(live, dir.resolve("app.log.2.gz"))
    val asked = KnownFile(first.key, first.lineEnd, first.fingerprint, first.tailAtLineEnd)
    assert(scanner.scan(Seq(asked)).loneElement.path === renamed.toString)
    assert(scanner.scan(Nil).isEmpty)
    assert(scanner.decompressions === 0L)
  }
}
