package com.hx.spark.sql.connector.aof.files.cleanup

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.nio.file.attribute.FileTime
import java.util.regex.Pattern
import java.util.zip.{GZIPInputStream, GZIPOutputStream}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.testkit.{Logged, MovingClock}

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

  test("a look says when the next file waiting for cleanup.after may go; a look then removes it") {
    withDir { dir =>
      write(dir.resolve("app.log.1"), "c\n", ageMinutes = 2)
      write(dir.resolve("app.log"), "d\n", ageMinutes = 1)
      val clock = new MovingClock
      val scan = scanner(dir, clock)
      val (known, all) = readToEnd(scan.scan(Nil))
      clock.advance(after / 2)
      assert(scan.scan(known, remove = all).size === 2)
      // What the node waits for: a note then brings the look that removes it.
      val due = scan.nextSettlingMs.getOrElse(fail("no time said"))
      // A little after: file times tick coarsely.
      assert(due > after / 2 - 10000L && due <= after / 2 + 1000L, due)
      clock.advance(due)
      assert(scan.scan(known, remove = all).map(_.path) === Seq(dir.resolve("app.log").toString))
      assert(scan.nextSettlingMs === None)
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
      // Older than the live file: written in the same millisecond, its time would be later than
      // the live file's, which is set in whole milliseconds, and it would be the one spared.
      Files.setLastModifiedTime(gz, FileTime.fromMillis(System.currentTimeMillis() - 60000L))
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

  test("a file that cannot be removed is counted, warned about once, then at most once a minute") {
    withDir { dir =>
      val logs = Files.createDirectories(dir.resolve("logs"))
      write(logs.resolve("app.log.1"), "a\n", ageMinutes = 2)
      write(logs.resolve("app.log"), "b\n", ageMinutes = 1)
      // An archive directory under a regular file: no user, root either, can make it.
      val archive = write(dir.resolve("not-a-directory"), "x\n").resolve("archive")
      val clock = new MovingClock
      val scan = scanner(logs, clock, Some(archive))
      val (known, all) = readToEnd(scan.scan(Nil))
      clock.advance(after + 1000L)
      Logged.during(classOf[Cleanup].getName) { said =>
        def warned = said().count(_.startsWith(s"aof: cannot archive into $archive"))
        (1 to 5).foreach { _ =>
          assert(scan.scan(known, remove = all).size === 2) // a trigger's look: nothing removed
          assert(scan.notRemovedByLastScan === 1) // each look: the driver's `filesNotRemoved`
          clock.advance(1000L)
        }
        assert(warned === 1)
        clock.advance(RemovalWarnings.AgainMs)
        scan.scan(known, remove = all)
        assert(warned === 2)
        // No longer to be removed, then again: said at once.
        scan.scan(known)
        assert(scan.notRemovedByLastScan === 0)
        scan.scan(known, remove = all)
        assert(warned === 3)
      }
    }
  }

  /** A file of `lines`, gzipped when its name says so, written a few minutes ago. */
  private def rotated(file: Path, lines: Seq[String]): Path = {
    val text = lines.map(_ + "\n").mkString.getBytes(UTF_8)
    if (file.toString.endsWith(".gz")) {
      val out = new GZIPOutputStream(Files.newOutputStream(file))
      try out.write(text)
      finally out.close()
    } else Files.write(file, text)
    Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() - 180000L))
    file
  }

  /** Every line of every file under `dir`, decompressed. */
  private def linesUnder(dir: Path): Seq[String] = {
    val files =
      Files.walk(dir).filter(Files.isRegularFile(_)).toArray.toSeq.map(_.asInstanceOf[Path])
    files.flatMap { f =>
      val in = Files.newInputStream(f)
      val text = if (f.toString.endsWith(".gz")) new GZIPInputStream(in) else in
      try scala.io.Source.fromInputStream(text, "UTF-8").getLines().toVector
      finally text.close()
    }
  }

  /** The names in the archive of the files of `logs`. */
  private def archivedNames(archive: Path, logs: Path): Seq[String] = {
    val dir = Paths.get(archive.toString, logs.toString)
    Files.list(dir).toArray.toSeq.map(_.asInstanceOf[Path].getFileName.toString).sorted
  }

  // Logrotate gives `app.log.1` to another file at each rotation: each must stay in the archive.
  Seq("app.log.1" -> "", "app.log.2.gz" -> ".gz").foreach { case (name, extension) =>
    test(s"a name archived again ($name) keeps every file archived under it before") {
      withDir { dir =>
        val logs = Files.createDirectories(dir.resolve("logs"))
        val archive = dir.resolve("archive")
        val clock = new MovingClock
        val written = (1 to 3).flatMap { round =>
          val lines = (1 to 5).map(n => s"round-$round-line-$n")
          val file = rotated(logs.resolve(name), lines)
          write(logs.resolve("app.log"), s"live-$round\n") // the newest, spared
          val scan = scanner(logs, clock, Some(archive))
          val (known, all) = readToEnd(scan.scan(Nil))
          clock.advance(after + 1000L)
          scan.scan(known, remove = all)
          assert(!Files.exists(file), s"archived at round $round")
          lines
        }
        val names = archivedNames(archive, logs)
        val base = name.stripSuffix(extension)
        val time = raw"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z"
        val timed = Pattern.quote(s"$base.") + time + Pattern.quote(extension)
        assert(names.size === 3 && names.contains(name), names)
        assert(names.filter(_ != name).forall(_.matches(timed)), names)
        assert(linesUnder(archive).sorted === written.sorted)
      }
    }
  }

  test("into another filesystem, a taken name is not replaced either") {
    // Linux's shared memory: a tmpfs, another filesystem than the temp directory's.
    val archive = Files.createTempDirectory(Paths.get("/dev/shm"), "cleanup-archive-")
    try
      withDir { dir =>
        assert(Files.getFileStore(archive) != Files.getFileStore(dir), "one filesystem")
        val logs = Files.createDirectories(dir.resolve("logs"))
        val clock = new MovingClock
        val written = (1 to 2).flatMap { round =>
          val lines = Seq(s"round-$round")
          rotated(logs.resolve("app.log.1"), lines)
          write(logs.resolve("app.log"), "live\n")
          val scan = scanner(logs, clock, Some(archive))
          val (known, all) = readToEnd(scan.scan(Nil))
          clock.advance(after + 1000L)
          scan.scan(known, remove = all)
          assert(scan.removedByLastScan.size === 1)
          lines
        }
        assert(archivedNames(archive, logs).size === 2)
        assert(linesUnder(archive).sorted === written.sorted)
      }
    finally {
      Files.walk(archive).sorted(java.util.Comparator.reverseOrder()).forEach(Files.delete(_))
    }
  }

  test("a file already linked into the archive (stopped before its delete) is not archived twice") {
    withDir { dir =>
      val logs = Files.createDirectories(dir.resolve("logs"))
      val archive = dir.resolve("archive")
      val file = rotated(logs.resolve("app.log.1"), Seq("once"))
      write(logs.resolve("app.log"), "live\n")
      val target = Paths.get(archive.toString, file.toString)
      Files.createDirectories(target.getParent)
      Files.createLink(target, file)
      val clock = new MovingClock
      val scan = scanner(logs, clock, Some(archive))
      val (known, all) = readToEnd(scan.scan(Nil))
      clock.advance(after + 1000L)
      scan.scan(known, remove = all)
      assert(!Files.exists(file))
      assert(archivedNames(archive, logs) === Seq("app.log.1"))
    }
  }

  test("an archived name taken gets the time of archiving, a compressed file's extension last") {
    val at = java.time.Instant.parse("2026-12-03T16:40:00.123Z").toEpochMilli
    assert(ArchivedFile.name("app.log.1", at, 0) === "app.log.1")
    assert(ArchivedFile.name("app.log.1", at, 1) === "app.log.1.2026-12-03T16-40-00.123Z")
    assert(ArchivedFile.name("app.log.2.gz", at, 1) === "app.log.2.2026-12-03T16-40-00.123Z.gz")
    assert(ArchivedFile.name("app.log.2.GZ", at, 3) === "app.log.2.2026-12-03T16-40-00.123Z-2.GZ")
    assert(ArchivedFile.name(".gz", at, 1) === ".gz.2026-12-03T16-40-00.123Z")
  }
}
