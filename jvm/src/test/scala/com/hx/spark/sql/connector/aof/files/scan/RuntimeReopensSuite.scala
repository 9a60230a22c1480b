package com.hx.spark.sql.connector.aof.files.scan

import java.io.FileOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.util.zip.GZIPOutputStream

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.container.LineFormat
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, KnownFile, Prefixes}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.records.RecordRule
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, Spark4Only}

/**
 * Which file a runtime's renamed file is read together with, when a message is open at its end:
 * the rules of [[RuntimeReopens]], on real files, as the node's scan reports them.
 */
@Spark4Only
class RuntimeReopensSuite extends AnyFunSuite {
  private val rule =
    RecordRule(None, patternStarts = true, 1 << 20, 2000L, 1 << 20, None, LineFormat.Cri)

  /** A file by name: its lines (second of the runtime's time, stream and chunk), gzipped or not. */
  private case class Written(name: String, lines: Seq[(Int, String)], gzip: Boolean = false)

  private def text(lines: Seq[(Int, String)]): String =
    lines.map { case (second, chunk) => f"2026-11-28T10:00:$second%02dZ $chunk\n" }.mkString

  /**
   * Each file's answer as (lineEnd, the name of the file it continues), with `known` tracked at
   * the given positions; a node whose clock is behind the files', so none is quiet.
   */
  private def scan(
      files: Seq[Written],
      known: Map[String, Long] = Map.empty): Map[String, (Long, Option[String])] = {
    val dir = Files.createTempDirectory("reopen-")
    files.foreach { w =>
      val bytes = text(w.lines).getBytes(UTF_8)
      if (!w.gzip) Files.write(dir.resolve(w.name), bytes)
      else {
        val out = new GZIPOutputStream(new FileOutputStream(dir.resolve(w.name).toFile))
        try out.write(bytes)
        finally out.close()
      }
    }
    val clock = new MovingClock
    clock.advance(-3600L * 1000)
    val scanner =
      new DirectoryScanner(SourceFiles(dir, "\\d\\.log.*"), 1024, Some(rule), clock = clock)
    val asked = known.map { case (name, pos) =>
      val path = dir.resolve(name)
      val head = Prefixes.md5(java.nio.channels.FileChannel.open(path), 1024L min Files.size(path))
      KnownFile(FileKey.of(path), pos, head.get)
    }.toSeq
    val metas = scanner.scan(asked)
    val names = metas.map(m => m.key -> Paths.get(m.path).getFileName.toString).toMap
    metas.map(m => names(m.key) -> (m.lineEnd -> m.continues.map(names))).toMap
  }

  private val a = (1, "stdout F a")
  private val b1 = (2, "stderr P b1")
  private val b2 = (3, "stderr F b2")
  private val c = (4, "stdout F c")
  private def bytes(lines: (Int, String)*): Long = text(lines).length.toLong

  test("a line split by the reopen: read to its open chunk, then the next file after it") {
    val found =
      scan(Seq(Written("0.log.20261128-100002", Seq(a, b1)), Written("0.log", Seq(b2, c))))
    assert(found("0.log.20261128-100002") === (bytes(a) -> None))
    assert(found("0.log") === (bytes(b2, c) -> Some("0.log.20261128-100002")))
  }

  test("the file written next is told by the runtime's times, gzipped or not: rotations chain") {
    val d1 = (5, "stdout P d1")
    val d2 = (6, "stdout F d2")
    val files = Seq(
      Written("0.log.1.gz", Seq(a, b1), gzip = true),
      Written("0.log.2", Seq(b2, c, d1)),
      Written("0.log", Seq(d2)))
    val found = scan(files)
    assert(found("0.log.1.gz") === (bytes(a) -> None))
    assert(found("0.log.2") === (bytes(b2, c) -> Some("0.log.1.gz")))
    assert(found("0.log") === (bytes(d2) -> Some("0.log.2")))
  }

  test("not joined: no file named as it was, two files as early, or the next read on already") {
    val renamed = Written("0.log.1", Seq(a, b1))
    // No file of the name it had: its open chunk waits for it to go quiet.
    assert(scan(Seq(renamed, Written("1.log", Seq(b2))))("1.log")._2 === None)
    // Two files whose first lines are as early: which came next cannot be told.
    val other = (3, "stderr F x")
    val twins = scan(Seq(renamed, Written("0.log.2", Seq(b2)), Written("0.log", Seq(other))))
    assert(twins("0.log")._2 === None && twins("0.log.2")._2 === None)
    // The next file read past its start already: its first lines were rows of their own.
    val readOn = scan(Seq(renamed, Written("0.log", Seq(b2, c))), Map("0.log" -> bytes(b2)))
    assert(readOn("0.log")._2 === None)
  }
}
