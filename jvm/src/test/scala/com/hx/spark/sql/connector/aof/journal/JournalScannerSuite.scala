package com.hx.spark.sql.connector.aof.journal

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.Fingerprint
import com.hx.spark.sql.connector.aof.files.listing.{SourceFiles, UnlistedDirectory}
import com.hx.spark.sql.connector.aof.testkit.{JournalWriter, Spark4Only, TempDirectories}

/** A node's look at its journal: each sequence reported as a file of entry numbers. */
@Spark4Only
class JournalScannerSuite extends AnyFunSuite with TempDirectories {
  private def entries(n: Int): Seq[Seq[(String, Any)]] = (1 to n).map(i => Seq("MESSAGE" -> s"m$i"))

  private def scan(dir: Path) =
    new JournalScanner(SourceFiles(dir, ".*\\.journal~?")).scan(Nil, Map.empty, Set.empty)

  test("a sequence is a file of its numbers, from its oldest entry kept, all complete") {
    val dir = tempDirectory("journal")
    val writer = new JournalWriter(dir.resolve("remote.journal"))
    writer.append(entries(7))
    Files.write(dir.resolve("notes.txt"), "not a journal".getBytes)
    val header = JournalSequence.headerOf(writer.file).get
    val meta = scan(dir) match {
      case Seq(one) => one
      case other => fail(s"one sequence, not $other")
    }
    assert(meta.key === JournalScanner.key(header.seqnumId))
    assert(JournalScanner.seqnumId(meta.key) === header.seqnumId)
    assert(meta.path === writer.file.toString)
    assert((meta.start, meta.size, meta.lineEnd) === ((1L, 8L, 8L)))
    assert(meta.fingerprint === Fingerprint.Empty, "nothing a copy could be told by")
    writer.append(entries(3))
    assert(scan(dir).map(m => (m.key, m.size)) === Seq(meta.key -> 11L))
  }

  test("a journal file that cannot be read leaves the node's sequences unknown, saying which") {
    val dir = tempDirectory("journal")
    val writer = new JournalWriter(dir.resolve("remote.journal"))
    writer.append(entries(2))
    val later = ByteBuffer.wrap(Files.readAllBytes(writer.file)).order(ByteOrder.LITTLE_ENDIAN)
    later.putInt(12, later.getInt(12) | 1 << 5) // a later systemd's incompatible feature
    Files.write(dir.resolve("newer.journal"), later.array())
    val unlisted = intercept[UnlistedDirectory](scan(dir))
    assert(unlisted.reason.startsWith(s"${dir.resolve("newer.journal")} uses journal features"))
  }
}
