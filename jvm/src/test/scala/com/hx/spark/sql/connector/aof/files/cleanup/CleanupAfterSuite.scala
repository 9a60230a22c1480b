package com.hx.spark.sql.connector.aof.files.cleanup

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileStamp, Fingerprint}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner

/**
 * When `cleanup.after` starts for a file read to its end: at its last write, or when the node first
 * saw it rotated away, whichever is later; a rename along a rotation chain does not start it again.
 * Judged on given file times, which a real file cannot be given (nothing sets a change time).
 */
class CleanupAfterSuite extends AnyFunSuite {
  private val after = 60000L
  private val t0 = 1800000000000L // when the backup was rotated away

  test("the wait runs from the last write or the first rename away, not the chain's renames") {
    val dir = Files.createTempDirectory("cleanup-after-")
    try {
      Files.write(dir.resolve("app.log.1"), "a\n".getBytes(UTF_8))
      Files.write(dir.resolve("app.log"), "b\n".getBytes(UTF_8))
      val metas = new DirectoryScanner(SourceFiles(dir, "app.*"), 1024).scan(Nil)
      val backup = metas.find(_.path.endsWith(".1")).getOrElse(fail("no backup"))
      val live = metas.find(_.path.endsWith("app.log")).map(_.key)
      val stamp = FileStamp.of(Paths.get(backup.path))
      type Since = Map[FileKey, Cleanup.Since]
      def judge(modified: Long, changed: Long, since: Since, now: Long, key: FileKey) =
        Cleanup(None, after).removable(
          Seq(
            Cleanup.Candidate(
              backup,
              stamp.copy(modifiedNanos = modified * 1000000L, changedNanos = changed * 1000000L),
              backup.lineEnd,
              same = true)),
          (_: Path) => Some(key),
          Set.empty,
          since,
          now
        )
      val first = judge(t0 - 5000L, t0, Map.empty, t0 + 1000L, live.get)
      assert(first.now.isEmpty && first.dueInMs === Some(after - 1000L))
      assert(first.since === Map(backup.key -> Cleanup.Since(backup.fingerprint, t0)))
      // (name, last write, change time, as the node saw it before, now, due in: None if removed)
      val table: Seq[(String, Long, Long, Since, Long, Option[Long])] = Seq(
        (
          "renamed along the chain halfway",
          t0 - 5000L,
          t0 + after / 2,
          first.since,
          t0 + after,
          None),
        (
          "written again halfway",
          t0 + after / 2,
          t0 + after / 2,
          first.since,
          t0 + after,
          Some(after / 2)),
        (
          "first seen waiting after a chain rename",
          t0 - 5000L,
          t0 + after / 2,
          Map.empty,
          t0 + after,
          Some(after / 2)),
        ("quiet long enough", t0 - 5000L, t0, first.since, t0 + after, None),
        // Its key given to another file since (another head): that one's wait is its own.
        (
          "another file, the same key",
          t0 - 5000L,
          t0 + after / 2,
          first.since.map { case (k, s) => k -> s.copy(head = Fingerprint(1, "other")) },
          t0 + after,
          Some(after / 2))
      )
      for ((name, modified, changed, since, now, due) <- table) {
        val judged = judge(modified, changed, since, now, live.get)
        if (due.isEmpty) assert(judged.now.map(_.meta.key) === Seq(backup.key), name)
        else assert(judged.now.isEmpty && judged.dueInMs === due, name)
      }
      // The newest in its directory does not wait, and is forgotten: read on, it waits anew.
      val newest = judge(t0 - 5000L, t0, first.since, t0 + after, backup.key)
      assert(newest.now.isEmpty && newest.since.isEmpty)
    } finally {
      Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(Files.deleteIfExists(_))
    }
  }
}
