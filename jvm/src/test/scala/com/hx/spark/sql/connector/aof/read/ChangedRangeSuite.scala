package com.hx.spark.sql.connector.aof.read

import java.nio.channels.{ClosedByInterruptException, FileChannel}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}

import scala.collection.mutable.ArrayBuffer

import org.apache.commons.codec.digest.DigestUtils.md5Hex
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.files.identity.{FileIdentity, FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.files.listing.{FileSearch, PathPattern, SourceFiles}
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.testkit.{Logged, SparkTestKit}

/**
 * A range planned in a file changed before a task read it. Compressed (and deleted) by its
 * rotation, or moved to another directory: read from where its bytes now are, by each real
 * compressor. Moved out of the path's directories, into a copy `exclude` leaves out, or compressed
 * after a change: counted lost. Rewritten in place: counted lost, unless `md5.check.enabled` is
 * off.
 */
class ChangedRangeSuite extends AnyFunSuite with SparkTestKit {
  private val text = (1 to 2000).map(n => s"line $n\n").mkString.getBytes(UTF_8)
  private val head = Fingerprint(1024, md5Hex(text.take(1024)))

  // Into `<file>.<ext>` beside it (lz4 writes to a stdout that is not a terminal unless -m).
  private def compress(compressor: String, file: Path): Unit = {
    val args = Seq(compressor, "-q") ++ Some("-m").filter(_ => compressor == "lz4") :+ file.toString
    assert(new ProcessBuilder(args: _*).start().waitFor() === 0)
  }

  /** @param path the directory part of the query's path, by default the planned file's */
  private def read(
      range: FileRange,
      path: Option[String] = None,
      identity: FileIdentity = FileIdentity(checked = true),
      exclude: Seq[String] = Nil,
      beforeBatch: Int => Unit = _ => ()): (Seq[(String, Long)], Long) = {
    val counters = ReadCounters.register(spark.sparkContext)
    val directory = path.getOrElse(Paths.get(range.path).getParent.toString)
    val files = SourceFiles(Seq(PathPattern(directory, ".*")), exclude)
    val reader =
      new FileRangeReader(range, files, ReadSettings(identity = identity), false, counters)
    val rows = ArrayBuffer.empty[(String, Long)]
    val batch = new LineBatch()
    try {
      var batches = 0
      while ({ beforeBatch(batches); batches += 1; reader.nextBatch(batch) }) {
        (0 until batch.columns.numRows).foreach { i =>
          val row = batch.columns.getRow(i)
          rows += row.getUTF8String(0).toString -> row.getLong(3)
        }
      }
    } finally reader.close()
    (rows.toList, counters.bytesLost.value)
  }

  private def planned(file: Path, from: Long): FileRange =
    FileRange("h", file.toString, FileKey.of(file), "1:2:0", from, text.length.toLong, head)

  // Each line of `text` with its first byte's offset.
  private val lines: Seq[(String, Long)] = {
    val all = new String(text, UTF_8).split("\n").toSeq
    all.zip(all.scanLeft(0L)(_ + _.length + 1))
  }

  // Each compressor as logrotate's `compresscmd` runs it: the file replaced by its compressed copy.
  Seq("gzip" -> "gz", "bzip2" -> "bz2", "xz" -> "xz", "zstd" -> "zst", "lz4" -> "lz4").foreach {
    case (compressor, suffix) =>
      test(
        s"bytes planned in a file compressed by $compressor and deleted since are read from it") {
        val file = Files.write(newDir("logs").resolve("app.log.1"), text)
        val range = planned(file, 6000L)
        compress(compressor, file)
        Files.deleteIfExists(file) // zstd and lz4 keep what they compress; logrotate removes it
        assert(read(range) === ((lines.filter(_._2 >= 6000L), 0L)))
        // The compressed file itself planned (a tracked compressed rotation), by its own key.
        val compressed = file.resolveSibling(s"app.log.1.$suffix")
        assert(read(planned(compressed, 100L)) === ((lines.filter(_._2 >= 100L), 0L)))
      }
  }

  test("bytes planned in a file moved since to another directory of the path are read there") {
    val logs = newDir("logs")
    val old = Files.createDirectory(logs.resolve("old")) // logrotate's `olddir`
    val file = Files.write(logs.resolve("app.log"), text)
    val range = planned(file, 6000L)
    Files.move(file, old.resolve("app.log.1"))
    val unread = lines.filter(_._2 >= 6000L)
    assert(read(range, Some(s"$logs/**")) === ((unread, 0L)))
    compress("gzip", old.resolve("app.log.1"))
    assert(read(range, Some(s"$logs/**")) === ((unread, 0L)))
    assert(read(range, Some(s"$logs/{old,new}")) === ((unread, 0L)))
    // A directory the path does not name is never looked in.
    assert(read(range) === ((Nil, text.length - 6000L)))
  }

  test("a plan naming a file outside the path's directories is refused, said once, read nowhere") {
    val logs = newDir("logs")
    val secret = Files.write(newDir("secret").resolve("passwd"), text)
    val outside = planned(secret, 0L)
    val through = outside.copy(path = s"$logs/../${secret.getParent.getFileName}/passwd")
    val link = Files.createSymbolicLink(logs.resolve("app.log"), secret)
    val linked = outside.copy(path = link.toString)
    Logged.during(classOf[FileSearch].getName) { said =>
      // By its name, through `..`, or a link in the directory: the key is the secret file's.
      for (range <- Seq(outside, through, linked, outside)) {
        assert(read(range, Some(logs.toString)) === ((Nil, text.length.toLong)))
      }
      val refused = said().filter(_.startsWith("aof: refused to open"))
      assert(refused.size === 3, said())
      assert(refused.head.contains(secret.toString) && refused.head.contains("docs/security.md"))
    }
    // The same file, named by a plan of a query whose path names its directory, is read.
    assert(read(outside)._1.size === lines.size)
  }

  test(
    "bytes planned in a file whose only copy is excluded are lost; the file itself is followed") {
    val file = Files.write(newDir("logs").resolve("app.log.1"), text)
    val range = planned(file, 6000L)
    compress("gzip", file)
    assert(read(range, exclude = Seq("\\.gz$")) === ((Nil, text.length - 6000L)))
    // The planned file renamed to an excluded name: still the file planned, found by its key.
    val live = Files.write(file.resolveSibling("app.log"), text)
    val liveRange = planned(live, 6000L)
    Files.move(live, live.resolveSibling("app.log.2.gz"))
    val unread = lines.filter(_._2 >= 6000L)
    assert(read(liveRange, exclude = Seq("\\.gz$")) === ((unread, 0L)))
  }

  // `md5.check.enabled`, as the node and the planner take it: off, a file's key is trusted.
  Seq(true -> "counted lost", false -> "read, its key trusted").foreach { case (checked, what) =>
    test(s"bytes planned in a file rewritten in place since, md5 checks $checked: $what") {
      val file = Files.write(newDir("logs").resolve("app.log"), text)
      val range = planned(file, 6000L)
      Files.write(file, new String(text, UTF_8).replace("line", "LINE").getBytes(UTF_8))
      val rewritten = lines.map { case (line, at) => line.replace("line", "LINE") -> at }
      val expected =
        if (checked) (Nil, text.length - 6000L) else (rewritten.filter(_._2 >= 6000L), 0L)
      assert(read(range, identity = FileIdentity(checked)) === expected)
    }
  }

  // logrotate's `copytruncate` as a task reads, its writer writing on at once: the bytes at the
  // planned positions are then other lines, and the size tells nothing.
  Seq("opened its range" -> 0, "read the first buffer" -> 1).foreach { case (when, batches) =>
    test(s"a file copied, cut and written again after a task $when is read on from the copy") {
      val many = (1 to 40000).map(n => s"line $n\n").mkString.getBytes(UTF_8) // two reads' worth
      val file = Files.write(newDir("logs").resolve("app.log"), many)
      val range = FileRange(
        "h",
        file.toString,
        FileKey.of(file),
        "1:2:0",
        0L,
        many.length.toLong,
        Fingerprint(1024, md5Hex(many.take(1024))))
      def copyTruncate(): Unit = {
        Files.copy(file, file.resolveSibling("app.log.1"))
        val channel = FileChannel.open(file, StandardOpenOption.WRITE)
        try channel.truncate(0L)
        finally channel.close()
        Files.write(file, new String(many, UTF_8).replace("line", "LINE").getBytes(UTF_8))
      }
      val (rows, lost) = read(range, beforeBatch = n => if (n == batches) copyTruncate())
      assert(lost === 0L)
      assert(rows.map(_._1) === new String(many, UTF_8).split("\n").toSeq)
    }
  }

  test("a task killed as it opens its range stops; no byte of it is counted lost") {
    val file = Files.write(newDir("logs").resolve("app.log"), text)
    val counters = ReadCounters.register(spark.sparkContext)
    val files = SourceFiles(Seq(PathPattern(file.getParent.toString, ".*")), Nil)
    val reader =
      new FileRangeReader(planned(file, 0L), files, ReadSettings(), false, counters)
    // What Spark does to a task's thread when its query stops: the file's reads then fail.
    Thread.currentThread().interrupt()
    try intercept[ClosedByInterruptException](reader.nextBatch(new LineBatch()))
    finally {
      Thread.interrupted()
      reader.close()
    }
    assert(counters.bytesLost.value === 0L)
  }

  test("bytes planned in a file compressed after a change to its head are counted lost") {
    val file = Files.write(newDir("logs").resolve("app.log.1"), text)
    val range = planned(file, 6000L)
    Files.write(file, "another head\n".getBytes(UTF_8) ++ text)
    compress("xz", file)
    assert(read(range) === ((Nil, text.length - 6000L)))
  }
}
