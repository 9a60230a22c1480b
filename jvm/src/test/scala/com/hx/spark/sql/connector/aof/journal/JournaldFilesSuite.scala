package com.hx.spark.sql.connector.aof.journal

import java.nio.file.{Files, Path}

import scala.collection.JavaConverters._
import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{Journald, Polling, Spark4Only, TempDirectories}

/** The files of a real journald, read while it writes, rotates and vacuums them. */
@Spark4Only
class JournaldFilesSuite extends AnyFunSuite with TempDirectories {

  private def withJournald(body: Journald => Unit): Unit =
    Journald.running(tempDirectory("journald"))(body)

  private def journals(dir: Path): Seq[Path] =
    Files.list(dir).iterator().asScala.filter(_.toString.endsWith(".journal")).toSeq.sorted

  /** The entries of `identifier` in `files`, once there are `count`: journald writes them late. */
  private def logged(files: => Seq[Path], identifier: String, count: Int): Seq[JournalEntry] = {
    def entries = files
      .filter(Files.exists(_))
      .flatMap(read(_, 0))
      .filter(_.text("SYSLOG_IDENTIFIER").contains(identifier))
    Polling.eventually(s"$count entries of $identifier in $files", 30000)(entries.size >= count)
    entries
  }

  private def read(file: Path, after: Long): Seq[JournalEntry] = {
    val journal = JournalFile.open(file)
    try journal.entries(after).toList
    finally journal.close()
  }

  test("the file journald writes, read while it writes: each entry once, in order, none left") {
    withJournald { journald =>
      val file = journald.files(journald.runtime).resolve("system.journal")
      val lines = (1 to 3000).map(n => s"line $n")
      val writer = new Thread(() => lines.grouped(100).foreach(journald.log("app", _)))
      writer.start()
      val seen = mutable.ArrayBuffer.empty[JournalEntry]
      val deadline = System.nanoTime() + 60L * 1000000000L
      while (writer.isAlive || seen.count(_.text("SYSLOG_IDENTIFIER").contains("app")) < 3000) {
        assert(System.nanoTime() < deadline, s"3000 lines within 60 s: ${seen.size} entries")
        if (Files.exists(file)) seen ++= read(file, seen.lastOption.fold(0L)(_.seqnum))
      }
      assert(seen.map(_.seqnum) === (seen.head.seqnum to seen.last.seqnum), "each once, in order")
      val app = seen.filter(_.text("SYSLOG_IDENTIFIER").contains("app"))
      assert(app.map(_.text("MESSAGE").get) === lines)
      assert(read(file, 0).map(_.seqnum) === seen.map(_.seqnum))
    }
  }

  test("a rotation archives the file and the next one goes on numbering; a vacuum removes it") {
    withJournald { journald =>
      val dir = journald.files(journald.runtime)
      val live = dir.resolve("system.journal")
      journald.log("app", (1 to 50).map(n => s"before $n"))
      logged(Seq(live), "app", 50)
      journald.journalctl("--rotate")
      journald.log("app", (1 to 50).map(n => s"after $n"))
      logged(journals(dir), "app", 100)
      val archived = journals(dir).filter(_ != live) match {
        case Seq(one) => one
        case other => fail(s"one archived file, not $other")
      }
      assert(archived.getFileName.toString.startsWith("system@"))
      // journald marks it archived from a thread of its own once it has synced it, which may
      // come after `--rotate` returned, and after the next entries.
      def state = {
        val journal = JournalFile.open(archived)
        try journal.header.state
        finally journal.close()
      }
      Polling.eventually(s"$archived marked archived", 30000)(state == JournalHeader.Archived)
      val (old, now) = (JournalFile.open(archived), JournalFile.open(live))
      try {
        assert(now.header.seqnumId === old.header.seqnumId)
        assert(now.header.headSeqnum === old.header.tailSeqnum + 1)
        val messages = (old.entries() ++ now.entries()).flatMap(_.text("MESSAGE")).toList
        assert(
          messages.filter(_.matches("(before|after) \\d+")) ===
            (1 to 50).map(n => s"before $n") ++ (1 to 50).map(n => s"after $n"))
      } finally {
        old.close()
        now.close()
      }
      journald.journalctl("--vacuum-files=1")
      assert(journals(dir) === Seq(live))
    }
  }

  // What the journal's offsets must allow for: an entry read from /run comes again from /var.
  // (journald then removes the runtime's files where /run is a tmpfs; here it is the suite's.)
  test(
    "a flush copies the runtime journal's entries to /var with their numbers, in another " +
      "sequence") {
    withJournald { journald =>
      journald.log("app", Seq("a1", "a2", "a3"))
      val runtime = journald.files(journald.runtime).resolve("system.journal")
      val before = logged(Seq(runtime), "app", 3)
      journald.journalctl("--flush")
      val copied =
        logged(Seq(journald.files(journald.persistent).resolve("system.journal")), "app", 3)
      assert(
        copied.map(e => (e.seqnum, e.bootId, e.realtime, e.text("MESSAGE"))) ===
          before.map(e => (e.seqnum, e.bootId, e.realtime, e.text("MESSAGE"))))
      assert(copied.map(_.seqnumId).distinct.size === 1)
      assert(copied.head.seqnumId !== before.head.seqnumId)
    }
  }
}
