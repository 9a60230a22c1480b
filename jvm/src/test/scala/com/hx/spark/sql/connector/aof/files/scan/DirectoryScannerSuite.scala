package com.hx.spark.sql.connector.aof.files.scan

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.nio.file.attribute.FileTime
import java.util.concurrent.TimeUnit.NANOSECONDS

import org.scalatest.LoneElement
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileMeta, FileStamp, Fingerprint, KnownFile, Prefixes
}
import com.hx.spark.sql.connector.aof.files.listing.{FileListing, SourceFiles, UnlistedDirectory}
import com.hx.spark.sql.connector.aof.files.records.BatchCuts
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset}
import com.hx.spark.sql.connector.aof.plan.{CopiesLookedFor, Plan, PlanLimits, Planner, Ranges}
import com.hx.spark.sql.connector.aof.testkit.{
  FreedInodes, Logged, MovingClock, NameSwapper, Spark4Only
}

@Spark4Only
class DirectoryScannerSuite extends AnyFunSuite with LoneElement {

  private def withDir[T](body: Path => T): T = {
    val dir = Files.createTempDirectory("scan-")
    try body(dir)
    finally {
      Files.list(dir).forEach(p => Files.deleteIfExists(p))
      Files.deleteIfExists(dir)
    }
  }

  private def write(file: Path, text: String): Path =
    Files.write(file, text.getBytes(UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND)

  private def known(meta: FileMeta): KnownFile =
    KnownFile(meta.key, meta.lineEnd, meta.fingerprint, meta.tailAtLineEnd)

  test("files come oldest write first, whatever their names: a backlog in the order written") {
    withDir { dir =>
      val names = Seq("app.log", "app.log.2", "app.log.1")
      names.zipWithIndex.foreach { case (name, age) =>
        val file = write(dir.resolve(name), s"$name\n")
        Files.setLastModifiedTime(file, FileTime.fromMillis(1000000000000L - age * 60000L))
      }
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024)
      val found = scanner.scan(Nil).map(m => dir.relativize(Paths.get(m.path)).toString)
      assert(found === Seq("app.log.1", "app.log.2", "app.log"))
    }
  }

  test("what is kept of files no look reaches any more is forgotten") {
    withDir { dir =>
      val files = (1 to 3).map(i => write(dir.resolve(s"app.$i.log"), s"line $i\n"))
      val clock = new MovingClock
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024, clock = clock)
      clock.advance(150) // file times tick coarsely: only a settled file's answer is kept
      assert(scanner.scan(Nil).size === 3)
      assert(scanner.scan(Nil).size === 3)
      assert(scanner.remembered === 3)
      files.take(2).foreach(Files.delete)
      assert(scanner.scan(Nil).size === 1)
      assert(scanner.remembered === 1)
    }
  }

  test("a directory that is not there holds no files; one that cannot be listed is unknown") {
    withDir { dir =>
      val scanner = new DirectoryScanner(SourceFiles(dir.resolve("later"), "app.*"), 1024)
      assert(scanner.scan(Nil).isEmpty)
      assert(!scanner.directoryExists)
      // A path through a file: root passes permission checks, so this is what fails to list.
      val file = write(dir.resolve("app.log"), "aaaa\n")
      val unlisted =
        intercept[UnlistedDirectory](
          new DirectoryScanner(SourceFiles(file, "app.*"), 1024).scan(Nil))
      assert(unlisted.reason === s"$file is not a directory")
    }
  }

  test("a directory the file-name regex matches is not read, and said once with the fix") {
    withDir { dir =>
      val sub = Files.createDirectory(dir.resolve("app.d"))
      try {
        val scanner = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024)
        val logged = Logged.during(classOf[FileListing].getName) { seen =>
          assert(scanner.scan(Nil).isEmpty)
          assert(scanner.scan(Nil).isEmpty)
          seen()
        }
        assert(
          logged === Seq(
            s"aof: $sub matches the file-name regex 'app.*' but is a directory, and directories " +
              s"are not read. To read the files in it, end 'path' with '$sub/.*'."))
      } finally Files.delete(sub)
    }
  }

  test("a symbolic link the regex matches is not read, and said once with the files meant") {
    withDir { pods =>
      withDir { links =>
        val target = write(pods.resolve("0.log"), "a line\n")
        val link = Files.createSymbolicLink(links.resolve("web.log"), target)
        write(links.resolve("app.log"), "a file of its own\n")
        val scanner = new DirectoryScanner(SourceFiles(links, ".*\\.log"), 1024)
        val logged = Logged.during(classOf[FileListing].getName) { seen =>
          assert(scanner.scan(Nil).map(_.path) === Seq(links.resolve("app.log").toString))
          assert(scanner.scan(Nil).size === 1)
          seen()
        }
        val real = target.toRealPath().getParent
        assert(
          logged === Seq(
            s"aof: $link matches the file-name regex '.*\\.log' but is a symbolic link into " +
              s"$real, and links are not followed: the file behind it is rotated in its own " +
              s"directory, where the link does not lead. Set 'path' to the files themselves: " +
              s"$real/0\\.log.*."))
      }
    }
  }

  test("an answer kept for an unchanged file is not kept once it is rewritten or renamed") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "aaaa\nbbbb\n")
      val clock = new MovingClock
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024, clock = clock)
      val first = scanner.scan(Nil).loneElement
      clock.advance(150) // file times tick coarsely: only a settled file's answer is kept
      val asked = Seq(known(first))
      assert(scanner.scan(asked).loneElement === scanner.scan(asked).loneElement)
      // Rewritten in place, same size: its stamp changes, so it is read again.
      val raf = new java.io.RandomAccessFile(file.toFile, "rw")
      try raf.write("cccc\n".getBytes(UTF_8))
      finally raf.close()
      val again = scanner.scan(asked).loneElement
      assert(again.size === first.size)
      assert(again.fingerprint !== first.fingerprint)
      clock.advance(150)
      val renamed = Files.move(file, dir.resolve("app.log.1"))
      assert(scanner.scan(Seq(known(again))).loneElement.path === renamed.toString)
    }
  }

  test("files renamed while they are described are each reported, with their own bytes") {
    withDir { dir =>
      write(dir.resolve("app.log"), "a\n" * 100)
      write(dir.resolve("app.log.1"), "b\n" * 100)
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024)
      val first = scanner.scan(Nil)
      val heads = first.map(m => m.key -> m.fingerprint).toMap
      val swapper = new NameSwapper(dir.resolve("app.log"), dir.resolve("app.log.1"), 10)
      try {
        val deadline = System.nanoTime() + 5L * 1000 * 1000 * 1000
        while (System.nanoTime() < deadline) {
          val found = scanner.scan(first.map(known))
          assert(found.map(_.key).toSet === heads.keySet)
          found.foreach(m => assert(m.fingerprint === heads(m.key), s"${m.path} ${m.key}"))
        }
      } finally swapper.close()
    }
  }

  test("a symbolic link is not followed: its target's lines would be read twice") {
    withDir { dir =>
      val target = write(dir.resolve("app.log.1"), "a\n")
      Files.createSymbolicLink(dir.resolve("app.log"), target.getFileName)
      val found = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024).scan(Nil).loneElement
      assert(found.path === target.toString)
    }
  }

  test("only files whose whole name matches, no directories") {
    withDir { dir =>
      Seq("app.log", "app.log.1", "other.txt", "xapp.log").foreach(n =>
        write(dir.resolve(n), "a\n"))
      Files.createDirectory(dir.resolve("app.log.d"))
      val names = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
        .scan(Nil)
        .map(m => Path.of(m.path).getFileName.toString)
        .sorted
      assert(names === Seq("app.log", "app.log.1"))
    }
  }

  test("size, end of the last complete line, and a growing-prefix fingerprint") {
    withDir { dir =>
      write(dir.resolve("app.log"), "one\ntwo\nthr")
      val meta = new DirectoryScanner(SourceFiles(dir, "app.log"), 1024).scan(Nil).head
      assert((meta.size, meta.lineEnd) === ((11L, 8L)))
      assert(meta.fingerprint.length === 11L)
      val short = new DirectoryScanner(SourceFiles(dir, "app.log"), 4).scan(Nil).head
      assert(short.fingerprint.length === 4L)
    }
  }

  test("a tracked file renamed to a name the pattern misses is still reported; untracked is not") {
    withDir { dir =>
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log"), 1024)
      val first = scanner.scan(Nil).headOption
      assert(first.isEmpty)
      write(dir.resolve("app.log"), "a\n")
      val tracked = scanner.scan(Nil).head
      Files.move(dir.resolve("app.log"), dir.resolve("rotated.1"))
      write(dir.resolve("stranger.1"), "b\n")
      val after = scanner.scan(Seq(known(tracked)))
      assert(after.map(_.path) === Seq(dir.resolve("rotated.1").toString))
      assert(after.head.key === tracked.key)
    }
  }

  test("a shorter fingerprint the driver saw is probed again") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "ab\n")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.log"), 1024)
      val small = scanner.scan(Nil).head
      write(file, "cd\n")
      val grown = scanner.scan(Seq(known(small))).head
      assert(grown.fingerprint.length === 6L)
      assert(grown.probe === Some(small.fingerprint))
    }
  }

  test("the end of the last line follows a growing file across calls") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "a\nb")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.log"), 1024)
      val m1 = scanner.scan(Nil).head
      assert(m1.lineEnd === 2L)
      write(file, "bbbbbb") // still no newline: the end stays
      val m2 = scanner.scan(Seq(known(m1))).head
      assert(m2.lineEnd === 2L)
      write(file, "\nc\nd")
      assert(scanner.scan(Seq(known(m2))).head.lineEnd === 12L)
    }
  }

  test("a file replaced under the same name and inode is scanned from its start again") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "first content line\nsecond line\n")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.log"), 1024)
      val before = scanner.scan(Nil).head
      Files.write(file, "new\nxx".getBytes(UTF_8), StandardOpenOption.TRUNCATE_EXISTING)
      val after = scanner.scan(Seq(known(before))).head
      assert(after.key === before.key)
      assert((after.size, after.lineEnd) === ((6L, 4L)))
      assert(after.fingerprint !== before.fingerprint)
    }
  }

  test("a file replaced by another under the same name is scanned from its start") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "one\ntwo\nthree")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.log"), 1024)
      val before = scanner.scan(Nil).loneElement
      val next = write(dir.resolve("next.tmp"), "x\n" + "y" * 40)
      Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING)
      val after = scanner.scan(Seq(known(before))).loneElement
      assert(after.key !== before.key)
      assert((after.size, after.lineEnd) === ((42L, 2L)))
    }
  }

  test("content rewritten in place under the same head and grown is scanned again") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "HEAD\nab\ncd")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.log"), 4)
      assert(scanner.scan(Nil).loneElement.lineEnd === 8L)
      Files.write(file, "HEAD\nabcdefghij".getBytes(UTF_8), StandardOpenOption.TRUNCATE_EXISTING)
      // Byte 8 is inside a line now: ending a range there would split it.
      assert(scanner.scan(Nil).loneElement.lineEnd === 5L)
    }
  }

  test("the end of the last line is looked for from the driver's floor, while that holds") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "a\nbbbb")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.log"), 1024)
      val first = scanner.scan(Nil).loneElement
      assert(first.lineEnd === 2L)
      // A driver that stopped inside a line (bytes.max) is answered from there on.
      val floor = KnownFile(first.key, 4L, first.fingerprint)
      assert(scanner.scan(Seq(floor)).loneElement.lineEnd === 4L)
      write(file, "\ncc")
      assert(scanner.scan(Seq(floor)).loneElement.lineEnd === 7L)
      // A floor planned against other content counts for nothing.
      val other = KnownFile(first.key, 4L, Fingerprint(6L, "0" * 32))
      val fresh = new DirectoryScanner(SourceFiles(dir, "app.log"), 1024)
      Files.write(file, "a\nbbbb".getBytes(UTF_8), StandardOpenOption.TRUNCATE_EXISTING)
      assert(fresh.scan(Seq(floor)).loneElement.lineEnd === 4L)
      assert(fresh.scan(Seq(other)).loneElement.lineEnd === 2L)
    }
  }

  test("prefix hashes and line ends at the edges") {
    withDir { dir =>
      val file = write(dir.resolve("f"), "abc\ndef")
      val channel = java.nio.channels.FileChannel.open(file)
      try {
        assert(Prefixes.md5(channel, 0) === Some(Fingerprint.Empty))
        assert(Prefixes.md5(channel, 8).isEmpty)
        assert(Prefixes.lastLineEnd(channel, 0, 7) === Some(4L))
        assert(Prefixes.lastLineEnd(channel, 3, 7) === Some(4L))
        assert(Prefixes.lastLineEnd(channel, 4, 7) === None)
        assert(Prefixes.lastLineEnd(channel, 0, 3) === None)
      } finally channel.close()
    }
  }

  test("a copy of a tracked file is recognised by its head and the bytes before the position") {
    withDir { dir =>
      val original = write(dir.resolve("app.log"), "header\n" + "line\n" * 400)
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 64)
      val tracked = scanner.scan(Nil).head
      Files.copy(original, dir.resolve("app.log.1"))
      write(dir.resolve("app.log.1"), "after the copy\n")
      // Same head, other content before the position: not a copy.
      write(dir.resolve("app.log.2"), "header\n" + "LINE\n" * 400)
      // The beginning of a copy, as a reader catches one being written.
      Files.write(dir.resolve("app.log.3"), ("header\n" + "line\n" * 100).getBytes(UTF_8))
      Files.write(original, Array.emptyByteArray, StandardOpenOption.TRUNCATE_EXISTING)
      val byName =
        scanner.scan(Seq(known(tracked))).map(m => Path.of(m.path).getFileName.toString -> m).toMap
      assert(byName("app.log.1").copyOf === Some(tracked.key))
      assert(byName("app.log.2").copyOf === None)
      assert(byName("app.log.3").copyOf === Some(tracked.key))
      assert(byName("app.log").copyOf === None)
      assert(byName("app.log").tailAtFloor === None) // shorter than the floor now
    }
  }

  test("the tail before the floor and before the last line end are reported") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), "abc\ndef\n")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.log"), 3)
      val first = scanner.scan(Nil).head
      val channel = java.nio.channels.FileChannel.open(file)
      try assert(first.tailAtLineEnd === Prefixes.tail(channel, 8, 3))
      finally channel.close()
      write(file, "ghi\n")
      val next = scanner.scan(Seq(known(first))).head
      assert(next.tailAtFloor === first.tailAtLineEnd)
      assert(next.lineEnd === 12L)
    }
  }

  private val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))

  test("a reused inode: same key, other content, so the planner makes it a new file") {
    withDir { dir =>
      val inodes = new FreedInodes
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log"), 1024, stat = inodes.stat)
      write(dir.resolve("app.log"), "first file\n" * 200)
      val old = scanner.scan(Nil).head
      val start = Planner.plan(AofOffset.Empty, Map("h" -> Seq(old)), limits).end
      Files.delete(dir.resolve("app.log"))
      inodes.give(write(dir.resolve("app.log"), "second file\n" * 200), old.key)
      val known = Planner.known(start, "h")
      val now = scanner.scan(known).filter(_.path.endsWith("app.log"))
      assert(now.map(_.key) === Seq(old.key))
      val end = Planner.plan(start, Map("h" -> now), limits).end
      val file = end.hosts("h").files.values.loneElement
      assert((file.serial, file.first, file.pos) === ((1L, 0L, 2400L)))
    }
  }

  // `md5.check.enabled`, as the planner and the reader take it: off, a file's key is trusted.
  Seq(true, false).foreach { checked =>
    test(s"a file rewritten in place, md5 checks $checked: the node and the planner agree") {
      withDir { dir =>
        val identity = FileIdentity(checked)
        val scanner = new DirectoryScanner(
          SourceFiles(dir, "app\\.log"),
          1024,
          batchCuts = Some(BatchCuts.Any),
          identity = identity)
        val limits = PlanLimits(None, StartingOffsets.Earliest, identity)
        val file = write(dir.resolve("app.log"), "first file\n" * 200)
        val start = Planner.plan(AofOffset.Empty, Map("h" -> scanner.scan(Nil)), limits).end
        Files.write(file, ("second file\n" * 300).getBytes(UTF_8)) // the same inode
        val now = scanner.scan(Planner.known(start, "h")).loneElement
        val f = Planner.plan(start, Map("h" -> Seq(now)), limits).end.hosts("h").files.values
        // Off, the file is the one read before: read on, its line starts looked for from there.
        assert(f.loneElement.serial === (if (checked) 1L else 0L))
        assert((f.loneElement.first, f.loneElement.pos) === ((0L, 3600L)))
        assert(now.cuts.head > 2200L === !checked, now.cuts)
      }
    }
  }

  private def run(command: String*): Unit =
    assert(new ProcessBuilder(command: _*).inheritIO().start().waitFor() === 0, command)

  test("a compressed file is its lines; a compressor's output is listed once it has its magic") {
    withDir { dir =>
      val text = (1 to 100).map(n => s"line $n\n").mkString
      run("gzip", "-q", write(dir.resolve("app.log.1"), text).toString) // app.log.1.gz only
      write(dir.resolve("app.log"), "BZh9 is how this line starts\n")
      val empty = Files.createFile(dir.resolve("app.log.2.bz2"))
      val scanner = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024)
      val first = scanner.scan(Nil)
      val byName = first.map(m => Paths.get(m.path).getFileName.toString -> m).toMap
      assert(byName.keySet === Set("app.log", "app.log.1.gz", "app.log.2.bz2"))
      val plain = write(dir.resolve("plain"), text)
      val same = new DirectoryScanner(SourceFiles(dir, "plain"), 1024).scan(Nil).loneElement
      Files.delete(plain)
      val gz = byName("app.log.1.gz")
      assert(
        (gz.size, gz.lineEnd, gz.fingerprint) === ((same.size, same.lineEnd, same.fingerprint)))
      // The compressor writes into the file it made: tracked at byte 0, it is read as its lines.
      run("sh", "-c", s"printf 'a line\\n' | bzip2 > $empty")
      // Caught after its first two bytes: not taken for text, not listed until it has its magic.
      val begun = Files.write(dir.resolve("app.log.3.gz"), Array(0x1f, 0x8b).map(_.toByte))
      val again = scanner.scan(first.map(known))
      Files.write(begun, Files.readAllBytes(dir.resolve("app.log.1.gz")))
      val whole = scanner.scan(first.map(known)).map(m => Paths.get(m.path).getFileName.toString)
      assert(whole.toSet === Set("app.log", "app.log.1.gz", "app.log.2.bz2", "app.log.3.gz"))
      val bz2 = again.find(_.path.endsWith("app.log.2.bz2"))
      assert(bz2.map(m => (m.size, m.lineEnd)) === Some((7L, 7L)))
      assert(
        again
          .map(m => Paths.get(m.path).getFileName.toString)
          .toSet === Set("app.log", "app.log.1.gz", "app.log.2.bz2"))
    }
  }

  test("a tracked file compressed by its rotation: the .gz is its copy, read on from its offset") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), lines(1 to 300))
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
      val start = Planner.plan(AofOffset(Map.empty), Map("h" -> scanner.scan(Nil)), limits).end
      val pos = start.hosts("h").files.values.loneElement.pos
      write(file, lines(301 to 400)) // written, not yet read, when logrotate compresses it
      Files.move(file, dir.resolve("app.log.1"))
      run("gzip", "-q", dir.resolve("app.log.1").toString)
      val found = scanner.scan(Planner.known(start, "h")).loneElement
      assert(found.path.endsWith("app.log.1.gz"))
      val result = Planner.plan(start, Map("h" -> Seq(found)), limits)
      assert(result.losses.isEmpty)
      val gz = result.end.hosts("h").files.values.loneElement
      assert((gz.key, gz.first, gz.pos) === ((found.key, pos, lines(1 to 400).length.toLong)))
    }
  }

  test("a .gz renamed by the next rotation is not decompressed again; one rewritten is") {
    withDir { dir =>
      // Stored, not deflated: lines of the same length then make a file of the same size, with
      // any zlib.
      def gzip(text: String): Array[Byte] = {
        val bytes = new java.io.ByteArrayOutputStream()
        val out = new java.util.zip.GZIPOutputStream(bytes) {
          `def`.setLevel(java.util.zip.Deflater.NO_COMPRESSION)
        }
        try out.write(text.getBytes(UTF_8))
        finally out.close()
        bytes.toByteArray
      }
      val gz = Files.write(dir.resolve("app.log.1.gz"), gzip(lines(1 to 300)))
      val clock = new MovingClock
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024, clock = clock)
      val asked = Seq(known(scanner.scan(Nil).loneElement))
      clock.advance(150) // file times tick coarsely: only a settled file's answer is kept
      val answer = scanner.scan(asked).loneElement
      val decompressed = scanner.decompressions
      val renamed = Files.move(gz, dir.resolve("app.log.2.gz")) // its ctime changes
      assert(scanner.scan(asked).loneElement === answer.copy(path = renamed.toString))
      assert(scanner.decompressions === decompressed)
      // Other lines of the same size, written in place with the same mtime.
      val other = gzip(lines(1 to 299) + "LINE 300\n")
      assert(other.length === Files.size(renamed))
      val stamp = FileStamp.of(renamed)
      Files.write(renamed, other)
      Files.setLastModifiedTime(renamed, FileTime.from(stamp.modifiedNanos, NANOSECONDS))
      assert(FileStamp.of(renamed).copy(changedNanos = stamp.changedNanos) === stamp)
      val rewritten = scanner.scan(asked).loneElement
      assert(scanner.decompressions === decompressed + 1)
      assert(rewritten.tailAtLineEnd !== answer.tailAtLineEnd)
    }
  }

  test("a .gz given a tracked file's freed inode is gzip, and a copy of the file it compresses") {
    withDir { dir =>
      def lines(name: String, ns: Range) = ns.map(n => s"$name line $n\n").mkString
      val (a, b) = (write(dir.resolve("a.log"), lines("a", 1 to 300)), dir.resolve("b.log"))
      write(b, lines("b", 1 to 300))
      val inodes = new FreedInodes
      val scanner = new DirectoryScanner(SourceFiles(dir, "[ab]\\.log.*"), 1024, stat = inodes.stat)
      val first = Planner.plan(AofOffset.Empty, Map("h" -> scanner.scan(Nil)), limits).end
      // Looked at once as tracked files, as at each trigger: the scanner knows what they are.
      val start =
        Planner.plan(first, Map("h" -> scanner.scan(Planner.known(first, "h"))), limits).end
      val tracked = start.hosts("h").files.values.map(f => f.path -> f).toMap
      write(b, lines("b", 301 to 400)) // not read yet when b.log is compressed
      run("gzip", "-q", a.toString) // a.log.gz; a.log's inode is free
      // The next rotation's .gz may be given that inode: b.log's, here.
      run("sh", "-c", s"gzip -c $b > $b.gz")
      inodes.give(dir.resolve("b.log.gz"), tracked(a.toString).key)
      Files.delete(b)
      // The same scanner, and a new one (an endpoint started again).
      val again = new DirectoryScanner(SourceFiles(dir, "[ab]\\.log.*"), 1024, stat = inodes.stat)
      Seq(scanner, again).foreach { s =>
        val result = Planner.plan(start, Map("h" -> s.scan(Planner.known(start, "h"))), limits)
        assert(result.losses.isEmpty)
        val files = result.end.hosts("h").files.values.map(f => f.path -> (f.first, f.pos)).toMap
        val (aPos, bPos) = (tracked(a.toString).pos, tracked(b.toString).pos)
        assert(
          files === Map(
            s"$a.gz" -> ((aPos, aPos)),
            s"$b.gz" -> ((bPos, lines("b", 1 to 400).length.toLong))))
      }
    }
  }

  private def lines(ns: Range) = ns.map(n => s"line $n\n").mkString

  test("after copytruncate a batch reads the copy's rest before the lines written since") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), lines(1 to 300))
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
      val start = planOn(scanner, planOn(scanner, AofOffset.Empty).end).end
      write(file, lines(301 to 400))
      run("cp", file.toString, s"$file.1")
      Files.write(file, Array.emptyByteArray) // truncated
      write(file, lines(1001 to 1010))
      val ranges = Ranges.between(start, planOn(scanner, start).end)
      val read = ranges.map(r => (dir.relativize(Paths.get(r.path)).toString, r.from, r.until))
      val rest = lines(1 to 300).length.toLong
      assert(
        read === Seq(
          ("app.log.1", rest, lines(1 to 400).length.toLong),
          ("app.log", 0L, lines(1001 to 1010).length.toLong)))
    }
  }

  /**
   * app.log, tracked by a scanner whose next listing a rotation overtakes: run after the listing,
   * before the files it named are looked at, where no real rotation can be made to land on demand.
   */
  private final class Overtaken(dir: Path, inodes: FreedInodes = new FreedInodes) {
    private var rotation: Option[() => Unit] = None
    private val scanner = new DirectoryScanner(
      SourceFiles(dir, "app\\.log.*"),
      1024,
      listed = { listing =>
        rotation.foreach(rotate => { rotation = None; rotate() })
        listing
      },
      stat = inodes.stat)
    val file: Path = write(dir.resolve("app.log"), lines(1 to 300))
    val start: AofOffset =
      Planner.plan(AofOffset.Empty, Map("h" -> scanner.scan(Nil)), limits).end
    val tracked: FileOffset = start.hosts("h").files.values.loneElement

    /** The plan from `start` on the look that app.log's compression, then `more`, overtakes. */
    def planOvertaken(more: => Unit): Plan = {
      rotation = Some { () =>
        Files.move(file, dir.resolve("app.log.1"))
        run("gzip", "-q", dir.resolve("app.log.1").toString)
        more
      }
      Planner.plan(start, Map("h" -> scanner.scan(Planner.known(start, "h"))), limits)
    }
  }

  // Both: the driver forgets the file unless the answer names the .gz, which is then read whole.
  test("a tracked file compressed and deleted after the look listed it: its .gz is found") {
    withDir { dir =>
      val overtaken = new Overtaken(dir)
      write(overtaken.file, lines(301 to 400))
      val result = overtaken.planOvertaken(())
      val gz = result.end.hosts("h").files.values.loneElement
      assert(
        (gz.path, gz.first, gz.pos) ===
          ((s"${overtaken.file}.1.gz", overtaken.tracked.pos, lines(1 to 400).length.toLong)))
      assert(result.losses.isEmpty)
    }
  }

  test("a tracked file's inode given to a new file after the look listed it: its .gz is found") {
    withDir { dir =>
      val inodes = new FreedInodes
      val overtaken = new Overtaken(dir, inodes)
      val result = overtaken.planOvertaken {
        // The new app.log given the compressed file's freed inode, as ext4 does at once.
        inodes.give(write(overtaken.file, "new 1\n"), overtaken.tracked.key)
      }
      val files = result.end.hosts("h").files.values.map(f => f.path -> (f.first, f.pos)).toMap
      val pos = overtaken.tracked.pos
      assert(
        files === Map(
          s"${overtaken.file}.1.gz" -> ((pos, pos)),
          overtaken.file.toString -> ((0L, 6L))))
      assert(result.losses.isEmpty)
    }
  }

  /** A scanner of app.log.* whose listings each pass through the next of `rotations` first. */
  private def scripted(dir: Path, rotations: (() => Unit)*): DirectoryScanner = {
    val left = scala.collection.mutable.Queue(rotations: _*)
    new DirectoryScanner(
      SourceFiles(dir, "app\\.log.*"),
      1024,
      listed = { listing =>
        if (left.nonEmpty) left.dequeue()()
        listing
      })
  }

  private def planOn(scanner: DirectoryScanner, start: AofOffset): Plan = {
    val files = scanner.scan(Planner.known(start, "h"), Planner.retired(start, "h"))
    // What the endpoint answers: every retired file asked about was looked for.
    val looked = CopiesLookedFor("answer", Planner.retired(start, "h").keySet)
    Planner.plan(start, Map("h" -> files), limits, Map("h" -> looked))
  }

  // A look sees app.log cut by copytruncate, and both its listings miss the copy: the first was
  // taken before the copy was made, the second is overtaken by the next rotation's rename.
  test("a copy first shown an answer after its original was cut continues it, read once") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), lines(1 to 300))
      val copy = dir.resolve("app.log.1")
      val scanner = scripted(
        dir,
        () => (),
        () => {
          write(file, lines(301 to 400)) // not read yet
          Files.copy(file, copy)
          Files.write(file, Array.emptyByteArray)
          write(file, "new 1\n")
        },
        () => Files.move(copy, dir.resolve("app.log.2"))
      )
      val start = planOn(scanner, AofOffset.Empty).end
      val read = start.hosts("h").files.values.loneElement.pos
      val cut = planOn(scanner, start)
      assert(cut.losses.isEmpty)
      val next = planOn(scanner, cut.end)
      assert(next.losses.isEmpty)
      val ranges = (Ranges.between(start, cut.end) ++ Ranges.between(cut.end, next.end))
        .map(r => (Paths.get(r.path).getFileName.toString, r.from, r.until))
      assert(
        ranges.toSet === Set(
          ("app.log", 0L, 6L),
          ("app.log.2", read, lines(1 to 400).length.toLong)))
      assert(next.end.hosts("h").retired.isEmpty)
    }
  }

  // logrotate's copytruncate with a look between its copy and its truncate, and the batch that
  // look planned read after the truncate: the original's reader then reads its range from the
  // copy, so the copy must not also be read as a new file. A short head alone cannot tell a copy
  // from a file that shares a header: the copy starts with all of the original's bytes.
  Seq("a half line" -> "half", "two lines" -> lines(1 to 2)).foreach { case (what, first) =>
    test(s"a copy seen before its original (tracked by a short head: $what) is cut waits for it") {
      withDir { dir =>
        val file = write(dir.resolve("app.log"), first)
        val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
        val start = planOn(scanner, AofOffset.Empty).end
        val tracked = start.hosts("h").files.values.loneElement
        assert(tracked.fingerprint.length === first.length.toLong)
        write(file, lines(3 to 5))
        Files.copy(file, dir.resolve("app.log.1"))
        val seen = planOn(scanner, start)
        Files.write(file, Array.emptyByteArray)
        val next = planOn(scanner, seen.end)
        val ranges = (Ranges.between(start, seen.end) ++ Ranges.between(seen.end, next.end))
          .map(r => (Paths.get(r.path).getFileName.toString, r.from, r.until))
        val all = (first + lines(3 to 5)).length.toLong
        assert(ranges === Seq(("app.log", tracked.pos, all)))
        assert(seen.losses.isEmpty && next.losses.isEmpty)
        assert(next.end.hosts("h").retired.isEmpty)
      }
    }
  }

  test("a file tracked while shorter than the sample, then compressed: the .gz reads on") {
    withDir { dir =>
      val file = write(dir.resolve("app.log"), lines(1 to 20))
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
      val start = Planner.plan(AofOffset.Empty, Map("h" -> scanner.scan(Nil)), limits).end
      val tracked = start.hosts("h").files.values.loneElement
      assert(tracked.fingerprint.length < 1024 && tracked.pos === lines(1 to 20).length.toLong)
      write(file, lines(21 to 400))
      Files.move(file, dir.resolve("app.log.1"))
      run("gzip", "-q", dir.resolve("app.log.1").toString)
      val found = scanner.scan(Planner.known(start, "h")).loneElement
      val result = Planner.plan(start, Map("h" -> Seq(found)), limits)
      val gz = result.end.hosts("h").files.values.loneElement
      assert((gz.first, gz.pos) === ((tracked.pos, lines(1 to 400).length.toLong)))
      assert(result.losses.isEmpty)
    }
  }

  test("a file starting as a short tracked file does, which holds: new, read, not waiting") {
    withDir { dir =>
      write(dir.resolve("app.log"), "time,level,message\n")
      val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
      val start = Planner.plan(AofOffset.Empty, Map("h" -> scanner.scan(Nil)), limits).end
      write(dir.resolve("app.log.1"), "time,level,message\n" + "1,info,started\n")
      val found = scanner.scan(Planner.known(start, "h"))
      assert(found.map(_.copyOf) === Seq(None, None))
      val other = Planner.plan(start, Map("h" -> found), limits).end.hosts("h").files.values
      assert(other.filter(_.path.endsWith(".1")).map(f => (f.first, f.pos)) === Seq((0L, 34L)))
    }
  }
}
