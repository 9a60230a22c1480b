package com.hx.spark.sql.connector.aof.files

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.nio.file.attribute.FileTime
import java.util.zip.GZIPOutputStream

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.MovingClock

/**
 * `cleanup` on a node: real files, a clock moved instead of waiting. A file goes only when the
 * driver names it, it is read to its end, unchanged, quiet long enough, and not the newest.
 */
class CleanupSuite extends AnyFunSuite {
  private val after = 60000L

  private def withDir[T](body: Path => T): T = {
    val dir = Files.createTempDirectory("cleanup-")
    try body(dir)
    finally {
      Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(Files.deleteIfExists(_))
    }
  }

  private def write(file: Path, text: String, ageMinutes: Int = 0): Path = {
    Files.write(file, text.getBytes(UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND)
    val at = System.currentTimeMillis() - ageMinutes * 60000L
    Files.setLastModifiedTime(file, FileTime.fromMillis(at))
    file
  }

  /** What a driver that read each file to its end tells the node, and the keys it names. */
  private def readToEnd(metas: Seq[FileMeta]): (Seq[KnownFile], Set[FileKey]) =
    metas.map(m => KnownFile(m.key, m.lineEnd, m.fingerprint, m.tailAtLineEnd)) ->
      metas.map(_.key).toSet

  private def scanner(dir: Path, clock: MovingClock, archive: Option[Path] = None) =
    new DirectoryScanner(
      SourceFiles(dir, "app.*"),
      1024,
      clock = clock,
      cleanup = Some(Cleanup(archive.map(_.toString), after)))

  test("a file read to its end and quiet long enough goes; the newest stays; none is reported") {
    withDir { dir =>
      write(dir.resolve("app.log.2"), "a\nb\n", ageMinutes = 3)
      write(dir.resolve("app.log.1"), "c\n", ageMinutes = 2)
      write(dir.resolve("app.log"), "d\n", ageMinutes = 1)
      val clock = new MovingClock
      val scan = scanner(dir, clock)
      val (known, all) = readToEnd(scan.scan(Nil))
      // Renamed or written within `cleanup.after` by the file clock's change time: nothing yet.
      assert(scan.scan(known, remove = all).size === 3)
      clock.advance(after + 1000L) // file times are finer than the clock's milliseconds
      val left = scan.scan(known, remove = all)
      assert(left.map(_.path) === Seq(dir.resolve("app.log").toString))
      assert(scan.removedByLastScan.size === 2)
      assert(Files.list(dir).count() === 1L)
    }
  }

  test("a file not named, not read to its end, grown, or with a line unfinished stays") {
    withDir { dir =>
      val named = write(dir.resolve("app.log.3"), "a\n")
      val grown = write(dir.resolve("app.log.2"), "b\n")
      val unfinished = write(dir.resolve("app.log.1"), "c\nd")
      val clock = new MovingClock
      val scan = scanner(dir, clock)
      val metas = scan.scan(Nil)
      val (known, _) = readToEnd(metas)
      write(grown, "more\n")
      write(dir.resolve("app.log"), "e\n") // the newest: none of the others is spared for that
      clock.advance(after + 60000L)
      val remove = metas.filter(m => m.path != named.toString).map(_.key).toSet
      scan.scan(known, remove = remove)
      assert(Files.exists(named) && Files.exists(grown) && Files.exists(unfinished))
      assert(scan.removedByLastScan.isEmpty)
    }
  }

  // A compressor goes on writing its output once its input is removed: a copy of a file the
  // driver no longer tracks, which it would read as a new file.
  test("a file being copied (a copy begun beside it, as a compressor's output is) stays") {
    withDir { dir =>
      val file = write(dir.resolve("app.log.1"), "a line of the rotated log\n" * 100, 3)
      write(dir.resolve("app.log"), "new\n", ageMinutes = 1)
      val clock = new MovingClock
      val scan = scanner(dir, clock)
      val (known, _) = readToEnd(scan.scan(Nil))
      write(dir.resolve("app.log.1.copy"), "a line of the rotated log\n" * 10, 2)
      clock.advance(after + 60000L)
      val metas = scan.scan(known, remove = Set(FileKey.of(file)))
      assert(metas.exists(_.copyOf.contains(FileKey.of(file))))
      assert(Files.exists(file) && scan.removedByLastScan.isEmpty)
    }
  }

  test("another file under the same name and key is not removed: it is not what was read") {
    withDir { dir =>
      val file = write(dir.resolve("app.log.1"), "aaaa\n")
      val clock = new MovingClock
      val scan = scanner(dir, clock)
      val (known, all) = readToEnd(scan.scan(Nil))
      // Rewritten in place to the same size: the same key, other bytes.
      val raf = new java.io.RandomAccessFile(file.toFile, "rw")
      try raf.write("bbbb\n".getBytes(UTF_8))
      finally raf.close()
      write(dir.resolve("app.log"), "new\n") // the newest: app.log.1 is not spared for that
      clock.advance(after + 1000L)
      scan.scan(known, remove = all)
      assert(Files.exists(file))
    }
  }

  test("archive moves a file under its whole path; a compressed rotation goes once decompressed") {
    withDir { dir =>
      val logs = Files.createDirectories(dir.resolve("logs"))
      val gz = logs.resolve("app.log.1.gz")
      val out = new GZIPOutputStream(Files.newOutputStream(gz))
      try out.write("a\nb\n".getBytes(UTF_8))
      finally out.close()
      write(logs.resolve("app.log"), "c\n")
      val archive = dir.resolve("archive")
      val clock = new MovingClock
      val scan = scanner(logs, clock, Some(archive))
      val (known, all) = readToEnd(scan.scan(Nil))
      assert(known.exists(_.floor == 4L), "the .gz is known by what it decompresses to")
      clock.advance(after + 1000L)
      scan.scan(known, remove = all)
      assert(!Files.exists(gz))
      assert(Files.exists(Paths.get(archive.toString, gz.toString)))
    }
  }
}
