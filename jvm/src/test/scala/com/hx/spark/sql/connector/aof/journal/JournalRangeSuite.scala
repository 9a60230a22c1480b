package com.hx.spark.sql.connector.aof.journal

import java.nio.file.{Files, Path}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.testkit.{Journald, Polling, Spark4Only, TempDirectories}

/** A sequence's entries read by number from a real journald's files, through its rotations. */
@Spark4Only
class JournalRangeSuite extends AnyFunSuite with TempDirectories {

  private def withJournald(body: Journald => Unit): Unit =
    Journald.running(tempDirectory("journald"))(body)

  /** The journal files of `dir`, as a `path` of the source names them. */
  private def files(dir: Path): Seq[Path] =
    JournalSequence.listed(SourceFiles(dir.resolve("*"), ".*\\.journal~?"))

  /** The node's one sequence, once it holds `count` messages of `identifier`. */
  private def sequence(dir: Path, identifier: String, count: Int): JournalSequence = {
    def messages =
      read(dir, JournalSequence.of(files(dir)).head, 1L)._1.count(_.startsWith(identifier))
    Polling.eventually(s"$count messages of $identifier in $dir", 30000) {
      JournalSequence.of(files(dir)).size == 1 && messages >= count
    }
    JournalSequence.of(files(dir)).head
  }

  private def read(dir: Path, s: JournalSequence, from: Long, until: Long = -1L) = {
    val range = new JournalRange(files(dir), s.seqnumId, from, if (until < 0) s.tail + 1 else until)
    try { (range.flatMap(_.text("MESSAGE")).toList, range.lost) }
    finally range.close()
  }

  /** The sequence after `n` lines, and after a rotation and `n` more. */
  private def rotated(journald: Journald, n: Int): (JournalSequence, JournalSequence) = {
    journald.log("app", (1 to n).map(i => s"app a$i"))
    val first = sequence(journald.runtime, "app a", n)
    journald.journalctl("--rotate")
    journald.log("app", (1 to n).map(i => s"app b$i"))
    (first, sequence(journald.runtime, "app b", n))
  }

  test("a sequence's numbers go on through rotations; a range is read across its files") {
    withJournald { journald =>
      val dir = journald.runtime
      val (first, second) = rotated(journald, 30)
      assert(second.seqnumId === first.seqnumId)
      assert(second.head === first.head)
      assert(second.files.size === 2)
      val (all, lost) = read(dir, second, first.head)
      assert(lost === 0L)
      val app = all.filter(_.startsWith("app "))
      assert(app === (1 to 30).map(n => s"app a$n") ++ (1 to 30).map(n => s"app b$n"))
      // A range that starts in the archived file and ends in the live one, exactly.
      val (middle, _) = read(dir, second, first.tail, first.tail + 2)
      assert(
        middle === all.slice((first.tail - first.head).toInt, (first.tail - first.head).toInt + 2))
    }
  }

  test("numbers journald removed before they were read are lost; those it holds are read") {
    withJournald { journald =>
      val dir = journald.runtime
      val (first, _) = rotated(journald, 10)
      val live = JournalSequence.headerOf(journald.files(dir).resolve("system.journal")).get
      journald.journalctl("--vacuum-files=1")
      val after = JournalSequence.of(files(dir)).head
      assert(after.files.size === 1 && after.head === live.headSeqnum, "the archived file removed")
      val (held, lost) = read(dir, after, first.head)
      assert(lost === live.headSeqnum - first.head)
      assert(held.filter(_.startsWith("app ")) === (1 to 10).map(n => s"app b$n"))
      val (_, none) = read(dir, after, after.head)
      assert(none === 0L)
      Files.list(journald.files(dir)).forEach(p => Files.delete(p))
      val (nothing, gone) = read(dir, after, after.head, after.head + 5)
      assert(nothing.isEmpty && gone === 5L, "a sequence no file holds: its range is lost")
    }
  }
}
