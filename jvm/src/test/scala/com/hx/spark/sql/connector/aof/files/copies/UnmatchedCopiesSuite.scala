package com.hx.spark.sql.connector.aof.files.copies

import java.io.FileOutputStream
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.util.regex.Pattern
import java.util.zip.GZIPOutputStream

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile, Prefixes}
import com.hx.spark.sql.connector.aof.files.listing.{PathPattern, SourceFiles}
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner

class UnmatchedCopiesSuite extends AnyFunSuite {
  private val sample = 64

  private def lines(from: Int, to: Int): Array[Byte] =
    (from until to).map(i => f"line $i%05d\n").mkString.getBytes(UTF_8)

  /** What the driver knew of a file holding `bytes`, read to `floor`, then retired. */
  private def retired(dir: Path, bytes: Array[Byte], floor: Long): KnownFile = {
    val file = Files.write(Files.createTempFile(dir.getParent, "known-", ""), bytes)
    val channel = FileChannel.open(file, StandardOpenOption.READ)
    try
      KnownFile(
        FileKey(1, floor),
        floor,
        Prefixes.md5(channel, sample).get,
        Prefixes.tail(channel, floor, sample))
    finally channel.close()
  }

  private def meta(path: String, size: Long, k: KnownFile): FileMeta =
    FileMeta(path, FileKey(1, size), size, size, k.fingerprint, None, None, None, None, None)

  /** The copies `files`' scan finds of `known`, given the files it found (`found`, if given). */
  private def copiesOf(
      files: SourceFiles,
      known: Map[String, KnownFile],
      found: Seq[FileMeta] => Seq[FileMeta] = identity): Map[String, UnmatchedCopy] = {
    val scanner = new DirectoryScanner(files, sample)
    val scanned = scanner.scan(Nil)
    new UnmatchedCopies(sample).of(known, found(scanned), scanner.unreadFiles)
  }

  private def withDir(body: Path => Unit): Unit = {
    val root = Files.createTempDirectory("unmatched-")
    try body(Files.createDirectory(root.resolve("logs")))
    finally
      Files.walk(root).sorted(java.util.Comparator.reverseOrder()).forEach(Files.deleteIfExists(_))
  }

  test("the file no path reads that holds a retired file's bytes past its position") {
    withDir { dir =>
      val (first, second, third) = (lines(0, 100), lines(100, 200), lines(200, 300))
      Files.write(dir.resolve("app.log"), lines(300, 310)) // the live file, read
      Files.write(dir.resolve("app.log.1"), first) // copytruncate's copy
      Files.write(dir.resolve("notes.txt"), first.take(330) ++ lines(1000, 2000)) // starts alike
      val gz = new GZIPOutputStream(new FileOutputStream(dir.resolve("app.log.2.gz").toFile))
      try gz.write(second)
      finally gz.close()
      Files.write(dir.resolve("app.log.3"), third.take(300)) // no further than read
      val known = Map(
        "first" -> retired(dir, first, 500),
        "second" -> retired(dir, second, 700),
        "third" -> retired(dir, third, 500),
        "matched" -> retired(dir, first, 400))
      val matched = meta(s"$dir/app.log", 110, known("first")).copy(copyOfRetired = Some("matched"))
      val copies = copiesOf(SourceFiles(dir, "app\\.log"), known, _ :+ matched)
      assert(
        copies === Map(
          "first" -> UnmatchedCopy(s"$dir/app.log.1", first.length.toLong),
          "second" -> UnmatchedCopy(s"$dir/app.log.2.gz", second.length.toLong)))
    }
  }

  test("a copy that exclude leaves out is found; one a path reads, or the tracked one, is not") {
    withDir { dir =>
      val bytes = lines(0, 100)
      Files.write(dir.resolve("app.log.1"), bytes)
      val known = Map("f" -> retired(dir, bytes, 500))
      val excluded = SourceFiles(Seq(PathPattern(dir.toString, "app\\.log.*")), Seq("\\.1$"))
      val copy = UnmatchedCopy(s"$dir/app.log.1", bytes.length.toLong)
      assert(copiesOf(excluded, known) === Map("f" -> copy))
      assert(copiesOf(SourceFiles(dir, "app\\.log.*"), known).isEmpty)
      val tracked = meta(copy.path, copy.size, known("f"))
      assert(copiesOf(SourceFiles(dir, "app\\.log"), known, _ :+ tracked).isEmpty)
    }
  }

  test("a regex widened to match a copy's name: the name it matched, then the copy's suffix") {
    val table = Seq(
      ("app\\.log", "app.log.1", "app\\.log(\\.[0-9]+)?"),
      (".*\\.log", "app.log.2.gz", ".*\\.log(\\.[0-9]+\\.gz)?"),
      ("(app|web)\\.log", "web.log.1", "(?:(app|web)\\.log)(\\.[0-9]+)?"),
      ("app\\.log", "app-2026-12-05.log", "app\\.log|app-[0-9]+-[0-9]+-[0-9]+\\.log")
    )
    table.foreach { case (regex, copy, widened) =>
      assert(UnmatchedCopies.widen(regex, copy) === widened)
      assert(Pattern.matches(widened, copy))
    }
    assert(Pattern.matches(UnmatchedCopies.widen("app\\.log", "app.log.1"), "app.log"))
  }

  test("the advice names the path that would read the copy, or the exclude that leaves it out") {
    val dir = "/var/log/app"
    val live = SourceFiles(Seq(PathPattern(dir, "app\\.log")))
    assert(
      UnmatchedCopies.advice(live, java.nio.file.Paths.get(s"$dir/app.log.1")) ===
        s"no 'path' matches it; one that does: '$dir/app\\.log(\\.[0-9]+)?'")
    val excluded = SourceFiles(Seq(PathPattern(dir, "app\\.log.*")), Seq("\\.1$"))
    assert(
      UnmatchedCopies.advice(excluded, java.nio.file.Paths.get(s"$dir/app.log.1")) ===
        "'exclude' leaves it out (\\.1$)")
  }
}
