package com.hx.spark.sql.connector.aof.journal

import java.io.IOException
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{JournalWriter, Spark4Only, TempDirectories}

/**
 * Journal files made by systemd's own code, read back here and by `journalctl` (its export
 * format): the same entries, numbers and fields, in the same order.
 */
@Spark4Only
class JournalFileSuite extends AnyFunSuite with TempDirectories {
  private def newFile(name: String): Path = tempDirectory("journal").resolve(name)

  private def entry(n: Int): Seq[(String, Any)] = Seq(
    "MESSAGE" -> s"line $n",
    "_SYSTEMD_UNIT" -> s"unit-${n % 3}.service",
    "SYSLOG_IDENTIFIER" -> "app",
    "PRIORITY" -> (n % 8).toString,
    "_PID" -> (1000 + n).toString)

  private def read(file: Path, after: Long = 0L): Seq[JournalEntry] = {
    val journal = JournalFile.open(file)
    try journal.entries(after).toList
    finally journal.close()
  }

  /** What journalctl reads of `file`: each entry's cursor and fields (bytes as ISO-8859-1). */
  private def journalctl(file: Path): Seq[(String, Seq[(String, String)])] = {
    val process = new ProcessBuilder("journalctl", "--file", file.toString, "-o", "export").start()
    val out = ByteBuffer.wrap(process.getInputStream.readAllBytes()).order(ByteOrder.LITTLE_ENDIAN)
    assert(process.waitFor() === 0)
    def line(): String = {
      val start = out.position()
      while (out.get() != '\n') ()
      new String(out.array(), start, out.position() - start - 1, UTF_8)
    }
    val entries = mutable.ListBuffer.empty[(String, Seq[(String, String)])]
    var fields = mutable.ListBuffer.empty[(String, String)]
    while (out.hasRemaining) {
      val l = line()
      if (l.isEmpty) {
        val cursor = fields.collectFirst { case ("__CURSOR", c) => c }.get
        entries += cursor -> fields.filterNot(_._1.startsWith("__")).toList
        fields = mutable.ListBuffer.empty
      } else if (l.contains('=')) {
        fields += l.takeWhile(_ != '=') -> l.dropWhile(_ != '=').drop(1)
      } else {
        val value = new Array[Byte](out.getLong.toInt)
        out.get(value)
        out.get() // its newline
        fields += l -> new String(value, "ISO-8859-1")
      }
    }
    entries.toList
  }

  private def ours(entries: Seq[JournalEntry]): Seq[(String, Seq[(String, String)])] =
    entries.map { e =>
      val binary = e.fields.filter(f => !new String(f._2, UTF_8).getBytes(UTF_8).sameElements(f._2))
      e.cursor -> e.fields.map { case (k, v) =>
        k -> (if (binary.exists(_._1 == k)) new String(v, "ISO-8859-1") else new String(v, UTF_8))
      }
    }

  private def sameAsJournalctl(file: Path): Seq[JournalEntry] = {
    val entries = read(file)
    val theirs = journalctl(file)
    assert(ours(entries).map(_._1) === theirs.map(_._1))
    ours(entries).zip(theirs).foreach { case ((cursor, mine), (_, them)) =>
      assert(mine.sortBy(_._1) === them.sortBy(_._1), s"entry $cursor")
    }
    entries
  }

  Seq(
    "compact (systemd 252's default)" -> Map.empty[String, String],
    "regular" -> Map("SYSTEMD_JOURNAL_COMPACT" -> "0", "SYSTEMD_JOURNAL_KEYED_HASH" -> "0"))
    .foreach { case (layout, env) =>
      test(s"a $layout file: every entry, in order, with its fields, as journalctl reads it") {
        val writer = new JournalWriter(newFile("system.journal"), env)
        writer.append((1 to 300).map(entry)) // several entry arrays
        val entries = sameAsJournalctl(writer.file)
        assert(entries.map(_.seqnum) === (1L to 300L))
        assert(entries.map(_.text("MESSAGE").get) === (1 to 300).map(n => s"line $n"))
        assert(entries.forall(_.bootId == JournalWriter.BootId))
        assert(entries.map(_.realtime) === entries.map(_.realtime).sorted.distinct)
      }
    }

  test("a message large enough to be stored compressed, and binary fields, are read whole") {
    val writer = new JournalWriter(newFile("system.journal"))
    val large = "x" * 5000 + " end"
    val binary = Array[Byte](0, 1, '\n', -1, -2, 'a')
    writer.append(Seq(Seq("MESSAGE" -> large), Seq("MESSAGE" -> binary, "DATA" -> binary)))
    val stored = new String(Files.readAllBytes(writer.file), "ISO-8859-1")
    assert(!stored.contains("x" * 1000), "the large message is stored compressed")
    val entries = sameAsJournalctl(writer.file)
    assert(entries.head.text("MESSAGE").contains(large))
    val written = entries(1).fields.filter(f => Set("MESSAGE", "DATA")(f._1))
    assert(written.map(_._2.toSeq) === Seq(binary.toSeq, binary.toSeq))
  }

  test("entries after a number: those only; a file opened before an append reads what it held") {
    val writer = new JournalWriter(newFile("system.journal"))
    writer.append((1 to 200).map(entry))
    assert(read(writer.file, after = 150).map(_.seqnum) === (151L to 200L))
    assert(read(writer.file, after = 200).isEmpty)
    val before = JournalFile.open(writer.file)
    try {
      writer.append((201 to 210).map(entry)) // journal-remote appends to the file
      assert(before.entries(195).map(_.seqnum).toList === (196L to 200L))
    } finally before.close()
    assert(read(writer.file, after = 195).map(_.seqnum) === (196L to 210L))
  }

  test("a file that is no journal, or whose offsets point out of it, is named in the error") {
    val text = newFile("app.log")
    Files.write(text, "a line\n".getBytes(UTF_8))
    val notJournal = intercept[IOException](JournalFile.open(text))
    assert(notJournal.getMessage === s"$text is not a systemd journal file (no LPKSHHRH header)")
    val writer = new JournalWriter(newFile("system.journal"))
    writer.append((1 to 5).map(entry))
    // A feature of a later systemd (an incompatible flag this reader does not know).
    val later = ByteBuffer.wrap(Files.readAllBytes(writer.file)).order(ByteOrder.LITTLE_ENDIAN)
    later.putInt(12, later.getInt(12) | 1 << 5)
    val newer = newFile("newer.journal")
    Files.write(newer, later.array())
    val unknown = intercept[IOException](JournalFile.open(newer))
    assert(unknown.getMessage.startsWith(s"$newer uses journal features this source cannot read"))
    val bytes = Files.readAllBytes(writer.file)
    // The header's entry_array_offset, pointed past the file's end.
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(176, bytes.length + 8L)
    val broken = newFile("broken.journal")
    Files.write(broken, bytes)
    val error = intercept[IOException](read(broken))
    assert(error.getMessage.startsWith(s"$broken: journal file corrupt at offset"))
    // The first entry array's next, pointed back at itself: an error, not a loop.
    val looped = ByteBuffer.wrap(Files.readAllBytes(writer.file)).order(ByteOrder.LITTLE_ENDIAN)
    val first = looped.getLong(176)
    looped.putLong(first.toInt + 16, first)
    Files.write(broken, looped.array())
    val loop = intercept[IOException](read(broken))
    val said = s"$broken: journal file corrupt at offset $first: an entry array going back before"
    assert(loop.getMessage.startsWith(said))
  }

  test("a file of no entries has none") {
    val writer = new JournalWriter(newFile("system.journal"))
    writer.append(Nil)
    assert(read(writer.file).isEmpty)
  }
}
