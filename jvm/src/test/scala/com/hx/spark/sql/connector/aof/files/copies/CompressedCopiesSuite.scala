package com.hx.spark.sql.connector.aof.files.copies

import java.io.{ByteArrayOutputStream, OutputStream}
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.util.zip.GZIPOutputStream

import scala.collection.mutable
import scala.util.Random

import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorOutputStream
import org.scalatest.LoneElement
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.compression.{Compression, Decompressed}
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileKey, FileStamp}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{CopiesLookedFor, Plan, PlanLimits, Planner, Ranges}
import com.hx.spark.sql.connector.aof.testkit.TempDirectories

/**
 * A rotation's compressor caught in the act: it writes its output as it goes, beside the file it
 * compresses, and deletes that file once the output is whole. Whatever a look finds on the way,
 * every byte is planned once and none is counted lost.
 */
class CompressedCopiesSuite extends AnyFunSuite with TempDirectories with LoneElement {
  private val limits = PlanLimits(None, StartingOffsets.Earliest, FileIdentity(checked = true))
  private val text = (1 to 300).map(n => s"line $n\n").mkString

  private def write(file: Path, bytes: Array[Byte]): Path =
    Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND)

  private def gzip(bytes: Array[Byte]): Array[Byte] = compressed(bytes, new GZIPOutputStream(_))

  private def lz4(bytes: Array[Byte]): Array[Byte] =
    compressed(bytes, new FramedLZ4CompressorOutputStream(_))

  private def compressed(bytes: Array[Byte], by: OutputStream => OutputStream): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val compressor = by(out)
    try compressor.write(bytes)
    finally compressor.close()
    out.toByteArray
  }

  /**
   * The compressor's output of `original`, written part way to `out`: as far as it decompresses
   * to more than nothing and less than `below` bytes.
   */
  private def partWay(original: Path, out: Path, below: Long): Array[Byte] = {
    val whole = lz4(Files.readAllBytes(original))
    val decompressed = (n: Int) => {
      Files.write(out, whole.take(n))
      val channel = FileChannel.open(out)
      try {
        val lines = Decompressed.open(channel, Compression.Lz4)
        try lines.size()
        finally lines.close()
      } finally channel.close()
    }
    assert((1 to whole.length).exists(n => decompressed(n) > 0 && decompressed(n) < below))
    whole
  }

  private def planOn(scanner: DirectoryScanner, start: AofOffset): Plan = {
    val files = scanner.scan(Planner.known(start, "h"), Planner.retired(start, "h"))
    val looked = CopiesLookedFor("answer", Planner.retired(start, "h").keySet)
    Planner.plan(start, Map("h" -> files), limits, Map("h" -> looked))
  }

  /** A scanner of `dir` that sees each file of `given` under the key given with it. */
  private def scannerGiving(dir: Path, given: Map[Path, FileKey]): DirectoryScanner =
    new DirectoryScanner(
      SourceFiles(dir, "app\\.log.*"),
      1024,
      stat = path => {
        val stamp = FileStamp.of(path)
        given.get(path).fold(stamp)(key => stamp.copy(key = key))
      })

  /**
   * `file` compressed to `out` across three plans from `start`: the output part way, then
   * whole, then the original deleted. Its lines are read once, from `file`, none counted lost.
   */
  private def assertOriginalReadOnce(
      scanner: DirectoryScanner,
      start: AofOffset,
      file: Path,
      out: Path): Unit = {
    val whole = partWay(file, out, below = text.length.toLong)
    val first = planOn(scanner, start)
    Files.write(out, whole)
    val done = planOn(scanner, first.end)
    Files.delete(file)
    val last = planOn(scanner, done.end)
    val ranges = read(start, first.end) ++ read(first.end, done.end) ++ read(done.end, last.end)
    assert(ranges === Seq((file.toString, 0L, text.length.toLong)))
    assert(Seq(first, done, last).forall(_.losses.isEmpty))
  }

  private def read(from: AofOffset, to: AofOffset): Seq[(String, Long, Long)] =
    Ranges.between(from, to).map(r => (r.path, r.from, r.until))

  test("part way, shorter than its original's head: its copy, which waits for it") {
    val dir = tempDirectory("compressed-")
    val file = write(dir.resolve("app.log.1"), text.getBytes(UTF_8))
    val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
    val start = planOn(scanner, AofOffset.Empty).end
    val out = dir.resolve("app.log.1.lz4")
    val whole = partWay(file, out, below = 1024)
    val seen = planOn(scanner, start)
    assert(seen.end.hosts("h").files.values.map(_.path).toSeq === Seq(file.toString))
    Files.write(out, whole)
    Files.delete(file)
    val next = planOn(scanner, seen.end)
    assert(read(start, next.end).isEmpty)
    val lz4File = next.end.hosts("h").files.values.loneElement
    assert((lz4File.path, lz4File.first) === ((out.toString, text.length.toLong)))
    assert(seen.losses.isEmpty && next.losses.isEmpty && next.end.hosts("h").retired.isEmpty)
  }

  test("part way beside an original first seen with it: the original is read, once") {
    val dir = tempDirectory("compressed-")
    val file = write(dir.resolve("app.log.1"), text.getBytes(UTF_8))
    val scanner = new DirectoryScanner(SourceFiles(dir, "app\\.log.*"), 1024)
    assertOriginalReadOnce(scanner, AofOffset.Empty, file, dir.resolve("app.log.1.lz4"))
  }

  // Deleted files' inodes are soon others': the original and its compressed copy may both come
  // under keys the driver tracks, which a `copyOf` cannot tell apart.
  test("part way beside a new original, both under deleted tracked files' keys: read once") {
    val dir = tempDirectory("compressed-")
    val a = write(dir.resolve("app.log.3"), ("first old file\n" * 100).getBytes(UTF_8))
    val b = write(dir.resolve("app.log.4"), ("second old file\n" * 100).getBytes(UTF_8))
    val (file, out) = (dir.resolve("app.log.1"), dir.resolve("app.log.1.lz4"))
    val scanner = scannerGiving(dir, Map(file -> FileKey.of(a), out -> FileKey.of(b)))
    val start = planOn(scanner, AofOffset.Empty).end
    Files.delete(a)
    Files.delete(b)
    write(file, text.getBytes(UTF_8))
    assertOriginalReadOnce(scanner, start, file, out)
  }

  // A deleted file's inode given to a new file, which its rotation then compresses: the
  // compressed file is new, its original under a key the driver tracks.
  test("part way beside a new original under a deleted tracked file's key: it is read, once") {
    val dir = tempDirectory("compressed-")
    val old = write(dir.resolve("app.log.3"), ("old file\n" * 100).getBytes(UTF_8))
    val file = dir.resolve("app.log.1")
    val scanner = scannerGiving(dir, Map(file -> FileKey.of(old)))
    val start = planOn(scanner, AofOffset.Empty).end
    Files.delete(old)
    write(file, text.getBytes(UTF_8))
    assertOriginalReadOnce(scanner, start, file, dir.resolve("app.log.1.lz4"))
  }

  // The look described the original, then the output part way; the compressor finished and the
  // original went before the look compared their bytes.
  test("its original deleted amid the look that found it part way: looked at again") {
    val dir = tempDirectory("compressed-")
    val file = write(dir.resolve("app.log.1"), text.getBytes(UTF_8))
    val last = write(dir.resolve("app.log.2"), "older\n".getBytes(UTF_8))
    var finish = Option.empty[() => Unit]
    val scanner = new DirectoryScanner(
      SourceFiles(dir, "app\\.log.*"),
      1024,
      stat = { path =>
        if (path == last) finish.foreach { f => finish = None; f() }
        FileStamp.of(path)
      })
    val start = planOn(scanner, AofOffset.Empty).end
    val out = dir.resolve("app.log.1.lz4")
    val whole = partWay(file, out, below = 1024)
    finish = Some { () =>
      Files.write(out, whole)
      Files.delete(file)
    }
    val plan = planOn(scanner, start)
    assert(finish.isEmpty)
    assert(read(start, plan.end).isEmpty)
    val lz4File = plan.end.hosts("h").files.values.find(_.path == out.toString)
    assert(lz4File.map(_.first) === Some(text.length.toLong))
    assert(plan.losses.isEmpty)
  }

  // A compressor's steps (its output begun, written in parts, its original deleted) fall among
  // the looks' at random: after any stat, with each seed elsewhere. A look that finds a file gone
  // is followed by another, which may find one gone too.
  Seq(false, true).foreach { tracked =>
    val original = if (tracked) "read before" else "first seen with it"
    test(s"a compressor at work amid the looks, its original $original: each line once") {
      (1 to 300).foreach { seed =>
        val random = new Random(seed)
        val dir = tempDirectory("compressed-")
        val file = dir.resolve("app.log.1")
        val out = dir.resolve("app.log.1.gz")
        val whole = gzip(text.getBytes(UTF_8))
        val parts = whole.grouped(whole.length / (1 + random.nextInt(4)) + 1).toList
        val steps = mutable.Queue[() => Unit](() => write(out, Array.emptyByteArray))
        parts.foreach(part => steps += (() => write(out, part)))
        steps += (() => Files.delete(file))
        val scanner = new DirectoryScanner(
          SourceFiles(dir, "app\\.log.*"),
          1024,
          stat = { path =>
            if (steps.nonEmpty && random.nextInt(3) == 0) steps.dequeue()()
            FileStamp.of(path)
          })
        write(dir.resolve("app.log.2"), "older\n".getBytes(UTF_8))
        // Written and rotated between two looks, a new original is first seen beside its output.
        if (tracked) write(file, text.getBytes(UTF_8))
        val start = planOn(scanner, AofOffset.Empty).end
        if (!tracked) write(file, text.getBytes(UTF_8))
        val plans = mutable.ArrayBuffer(planOn(scanner, start))
        while (steps.nonEmpty || plans.size < 2) plans += planOn(scanner, plans.last.end)
        val ends = start +: plans.map(_.end)
        val ranges = ends.zip(ends.tail).flatMap { case (a, b) => read(a, b) }
        val lines = ranges.filterNot(_._1.endsWith("app.log.2")).map(r => r._3 - r._2).sum
        assert(lines === (if (tracked) 0L else text.length.toLong), s"seed $seed: $ranges")
        assert(plans.forall(_.losses.isEmpty), s"seed $seed")
      }
    }
  }

  // logrotate with `compress` and no `delaycompress` ran amid a look: the look described the
  // original, the application wrote on, and the original was renamed, compressed to the name the
  // look had listed for an older rotation, and deleted, all before the look came to that name.
  test("a rotation that overtook the look, its output more than the original it found: once") {
    val dir = tempDirectory("compressed-")
    val file = write(dir.resolve("app.log"), text.getBytes(UTF_8))
    val out = write(dir.resolve("app.log.1.lz4"), lz4("older\n".getBytes(UTF_8)))
    val older = dir.resolve("app.log.2.lz4")
    val more = (301 to 400).map(n => s"line $n\n").mkString
    var rotate = Option.empty[() => Unit]
    val scanner = new DirectoryScanner(
      SourceFiles(dir, "app\\.log.*"),
      1024,
      listed = _.sortBy(_.getFileName.toString), // the original first
      stat = { path =>
        if (path == out) rotate.foreach { r => rotate = None; r() }
        FileStamp.of(path)
      }
    )
    rotate = Some { () =>
      write(file, more.getBytes(UTF_8))
      Files.move(out, older)
      val rotated = Files.move(file, dir.resolve("app.log.1"))
      Files.createFile(file)
      write(out, lz4(Files.readAllBytes(rotated)))
      Files.delete(rotated)
    }
    val plan = planOn(scanner, AofOffset.Empty)
    assert(rotate.isEmpty)
    val whole = (text + more).length.toLong
    assert(
      read(AofOffset.Empty, plan.end).sorted === Seq(
        (out.toString, 0L, whole),
        (older.toString, 0L, 6L)))
    assert(plan.losses.isEmpty)
  }

  // A deleted file's inode is soon another's: here a compressor's output that has only begun its
  // magic, which read as text would be found "replaced" by what it decompresses to.
  test("begun under a deleted tracked file's key: waits for its magic, as a new one does") {
    val dir = tempDirectory("compressed-")
    val old = write(dir.resolve("app.log.2"), text.getBytes(UTF_8))
    val out = dir.resolve("app.log.1.lz4")
    val scanner = scannerGiving(dir, Map(out -> FileKey.of(old)))
    val start = planOn(scanner, AofOffset.Empty).end
    Files.delete(old)
    val whole = lz4("other lines\n".getBytes(UTF_8))
    write(out, whole.take(2))
    val begun = scanner.scan(Planner.known(start, "h"))
    assert(begun.isEmpty)
    val waited = planOn(scanner, start)
    write(out, whole.drop(2))
    val done = planOn(scanner, waited.end)
    assert(read(waited.end, done.end) === Seq((out.toString, 0L, 12L)))
    assert(waited.losses.isEmpty && done.losses.isEmpty)
  }
}
