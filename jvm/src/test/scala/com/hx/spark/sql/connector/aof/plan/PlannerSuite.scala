package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.config.StartingOffsets.{Earliest, Latest}
import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopy
import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileKey, FileMeta, Fingerprint, KnownFile
}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets, RetiredFile}

class PlannerSuite extends AnyFunSuite {
  private val host = "node-1"
  private val key = FileKey(2049L, 77L)
  private val head = Fingerprint(1024L, "head")
  private val tail = Fingerprint(1024L, "tail")

  private def meta(
      size: Long,
      lineEnd: Long,
      print: Fingerprint = head,
      probe: Option[Fingerprint] = None,
      tailAtFloor: Option[Fingerprint] = Some(tail),
      floor: Option[Long] = None) =
    FileMeta("/logs/app.log", key, size, lineEnd, print, probe, floor, tailAtFloor)

  // A journal's sequence, as a node's JournalScanner reports it: numbers `start` until `size`.
  private def journal(start: Long, size: Long) =
    FileMeta(
      "/run/log/journal/m/system.journal",
      key,
      size,
      size,
      Fingerprint.Empty,
      None,
      start = start)

  private def file(pos: Long, print: Fingerprint = head, serial: Long = 0L, seen: Long = 0L) =
    FileOffset("/logs/app.log", key, serial, 0L, pos, print, Some(tail), math.max(seen, pos))

  private def tracked(files: FileOffset*): AofOffset = AofOffset(
    Map(host -> HostOffsets(files.map(_.serial).max + 1, files.map(f => f.fileId -> f).toMap)))

  private def tracked(pos: Long): AofOffset = tracked(file(pos))

  private val noHosts = AofOffset.Empty
  private val otherFileOnHost = AofOffset(Map(host -> HostOffsets(1L, Map.empty)))

  private def limits(
      bytesMax: Option[Long] = None,
      starting: StartingOffsets = Earliest,
      md5: Boolean = true,
      batch: Option[Long] = None) =
    PlanLimits(bytesMax, starting, FileIdentity(md5), batch)
  private def cut(m: FileMeta, cuts: Long*) = m.copy(cuts = cuts)
  // A file of 50-byte lines, as a node reports it under a byte limit.
  private def lines(m: FileMeta) = m.copy(cuts = 50L until m.lineEnd by 50)

  private def plan(start: AofOffset, files: FileMeta*): Plan =
    Planner.plan(start, Map(host -> files), limits())

  private case class Row(
      rule: String,
      start: AofOffset,
      report: FileMeta,
      limits: PlanLimits,
      serial: Long,
      first: Long,
      pos: Long)

  private val other = Fingerprint(1024, "other")
  private val ten = Fingerprint(10, "ten")

  // format: off
  private val table = Seq(
    Row("!C1 & !C2, earliest: first read starts at 0", noHosts, meta(500, 400), limits(), 0, 0, 400),
    Row("!C1 & !C2, latest: first read starts at the last complete line", noHosts, meta(500, 400), limits(starting = Latest), 0, 400, 400),
    Row("!C1 & C2: a file created since is read from 0, even with latest", otherFileOnHost, meta(500, 400), limits(starting = Latest), 1, 0, 400),
    Row("!C1, ignored (ignore.older): followed from its last complete line", noHosts, meta(500, 400).copy(ignored = true), limits(), 0, 400, 400),
    Row("!C1 & C2, ignored: a file created since is followed from its end too", otherFileOnHost, meta(500, 400).copy(ignored = true), limits(), 1, 400, 400),
    Row("C1, reported ignored: a tracked file is read on, whatever a node says", tracked(100), meta(500, 400).copy(ignored = true), limits(), 0, 0, 400),
    Row("C1 & C3 & C4: normal, up to the last complete line", tracked(100), meta(500, 400), limits(), 0, 0, 400),
    Row("normal, bytes.max ends at the last line start within it", tracked(100), lines(meta(500, 400)), limits(bytesMax = Some(170)), 0, 0, 250),
    Row("bytes.max never ends inside a line: no start within, the whole line", tracked(100), meta(500, 400), limits(bytesMax = Some(150)), 0, 0, 400),
    Row("bytes.max larger than what is there", tracked(100), meta(500, 400), limits(bytesMax = Some(Long.MaxValue)), 0, 0, 400),
    Row("batch.bytes.max caps a lone file's batch too", tracked(100), lines(meta(500, 400)), limits(batch = Some(150)), 0, 0, 250),
    Row("bytes.max and batch.bytes.max: the smaller wins", tracked(100), lines(meta(500, 400)), limits(bytesMax = Some(50), batch = Some(150)), 0, 0, 150),
    Row("batch.bytes.max on a replaced file", tracked(300), lines(meta(500, 200, other)), limits(batch = Some(50)), 1, 0, 50),
    Row("nothing new: the position stays", tracked(400), meta(450, 400), limits(), 0, 0, 400),
    Row("C1 & !C3: replaced, a new serial read from 0", tracked(300), meta(500, 200, other), limits(), 1, 0, 200),
    Row("C1 & !C3 with bytes.max", tracked(300), lines(meta(500, 200, other)), limits(bytesMax = Some(50)), 1, 0, 50),
    Row("C1 & !C3 ignored when md5 checks are off", tracked(300), meta(500, 450, other), limits(md5 = false), 0, 0, 450),
    Row("truncated below its fingerprint: replaced", tracked(300), meta(10, 10, Fingerprint(10, "x")), limits(), 1, 0, 10),
    Row("C1 & C3 & !C4: same head but shorter, continue at its length", tracked(3000), meta(2000, 1900, tailAtFloor = None), limits(), 0, 0, 2000),
    Row("short file grown past its fingerprint: the probe agrees", tracked(file(10, ten)), meta(500, 400, head, Some(ten)), limits(), 0, 0, 400),
    Row("short file grown but its head changed", tracked(file(10, ten)), meta(500, 400, head, Some(Fingerprint(10, "new"))), limits(), 1, 0, 400),
    Row("same head, other bytes before the position (inode reused): new", tracked(300), meta(500, 400, tailAtFloor = Some(other), floor = Some(300)), limits(), 1, 0, 400),
    Row("bytes.max ends at the last record start within it", tracked(100), cut(meta(900, 800), 150, 300, 500), limits(Some(300)), 0, 0, 300),
    Row("a limit smaller than a record still reads one", tracked(100), cut(meta(900, 800), 150, 300, 500), limits(Some(20)), 0, 0, 150),
    Row("a record start behind the position is none", tracked(350), cut(meta(900, 800), 150, 300, 500), limits(Some(100)), 0, 0, 500),
    Row("no start within, the whole record", tracked(100), cut(meta(900, 800)), limits(Some(10)), 0, 0, 800),
    Row("a limit past the end reads to the end", tracked(100), cut(meta(900, 800), 150), limits(Some(5000)), 0, 0, 800),
    Row("the batch's share ends at a record start too", tracked(100), cut(meta(900, 800), 150, 300, 500), limits(batch = Some(250)), 0, 0, 300),
    Row("a zero-byte file grows: its empty head agrees with anything", tracked(file(0, Fingerprint.Empty)), meta(50, 50, Fingerprint(50, "f"), Some(Fingerprint.Empty)), limits(), 0, 0, 50),
    Row("a journal's sequence, earliest: read from its oldest entry kept", noHosts, journal(548, 601), limits(), 0, 548, 601),
    Row("a journal's sequence, latest: from after its newest", noHosts, journal(548, 601), limits(starting = Latest), 0, 601, 601),
    Row("a journal's sequence read on: its numbers, whichever files hold them", tracked(file(580, Fingerprint.Empty)), journal(560, 700), limits(), 0, 0, 700)
  )
  // format: on

  table.foreach { row =>
    test(s"rule: ${row.rule}") {
      val end = Planner.plan(row.start, Map(host -> Seq(row.report)), row.limits).end
      val files = end.hosts(host).files.values.toSeq
      assert(files.map(f => (f.serial, f.first, f.pos)) === Seq((row.serial, row.first, row.pos)))
      assert(files.head.fingerprint === row.report.fingerprint)
      assert(files.head.seen === row.report.size)
      val nextBefore = row.start.hosts.get(host).fold(0L)(_.nextSerial)
      assert(end.hosts(host).nextSerial === math.max(row.serial + 1, nextBefore))
    }
  }

  // Trigger.AvailableNow plans every batch against the reports of its first trigger.
  private def assertFixedPoint(
      start: AofOffset,
      reports: Map[String, Seq[FileMeta]],
      l: PlanLimits) = {
    var end = Planner.plan(start, reports, l).end
    var batches = 1
    var next = Planner.plan(end, reports, l)
    while (next.end != end && batches < 1000) {
      assert(next.losses.isEmpty, s"batch $batches lost ${next.losses}")
      assert(end.hosts(host).files.keySet.subsetOf(next.end.hosts(host).files.keySet))
      end = next.end
      batches += 1
      next = Planner.plan(end, reports, l)
    }
    assert(next.end === end, "planning again against the same reports never settles")
    assert(next.losses.isEmpty)
    end
  }

  table.foreach { row =>
    test(s"fixed point: ${row.rule}") {
      assertFixedPoint(row.start, Map(host -> Seq(row.report)), row.limits)
    }
  }

  private val abc = Fingerprint(3, "abc")
  private val noNewline = FileMeta("/logs/app.log", key, 3, 0, abc, None)
    .copy(tailAtLineEnd = Some(Fingerprint.Empty))

  test("removable: files the committed batch read to their end, not read further since") {
    val cases = Seq(
      ("read to its end, and no further since", file(100L), file(100L), Seq(key)),
      ("its last line unfinished when planned", file(90L, seen = 100L), file(90L), Nil),
      ("read further since the commit", file(100L), file(150L), Nil),
      ("never read a byte", file(0L), file(0L), Nil),
      ("another content under the key since", file(100L), file(100L, serial = 1L), Nil),
      ("its head skipped (latest)", file(100L).copy(skipped = true), file(100L), Nil)
    )
    for ((rule, committed, start, expected) <- cases) {
      assert(Planner.removable(tracked(committed), tracked(start), host) === expected, rule)
    }
    assert(Planner.removable(tracked(file(100L)), noHosts, host) === Nil, "a host not in start")
    // Followed from its end: its head is skipped, which a copy of it inherits.
    val latest =
      Planner.plan(noHosts, Map(host -> Seq(meta(100L, 100L))), limits(starting = Latest))
    assert(latest.end.hosts(host).files.values.map(_.skipped).toSeq === Seq(true))
    val read = Planner.plan(noHosts, Map(host -> Seq(meta(100L, 100L))), limits())
    assert(read.end.hosts(host).files.values.map(_.skipped).toSeq === Seq(false))
  }

  test("fixed point: a new file without a newline stays at 0, under one id") {
    Seq(noHosts, otherFileOnHost).foreach { start =>
      val end = assertFixedPoint(start, Map(host -> Seq(noNewline)), limits())
      assert(end.hosts(host).files.values.map(f => (f.key, f.pos)).toSeq === Seq((key, 0L)))
    }
  }

  test("fixed point: bytes.max batches reach the last line under one id") {
    val end =
      assertFixedPoint(noHosts, Map(host -> Seq(lines(meta(5000, 4000)))), limits(Some(300)))
    assert(end.hosts(host).files.values.map(f => (f.serial, f.pos)).toSeq === Seq((0L, 4000L)))
  }

  // A file of 1-byte lines, so that any share of a batch ends at a line start.
  private def fileOf(ino: Long, lineEnd: Long) =
    FileMeta(s"/logs/app-$ino.log", FileKey(2049L, ino), lineEnd + 10, lineEnd, head, None)
      .copy(cuts = 1L until lineEnd)

  private def positions(end: AofOffset): Map[(String, Long), Long] =
    end.hosts.toSeq.flatMap { case (h, o) =>
      o.files.values.map(f => (h, f.key.ino) -> f.pos)
    }.toMap

  test("batch.bytes.max is shared fairly: a quiet file whole, the busy ones evenly, host or not") {
    val reports =
      Map(host -> Seq(fileOf(1, 100), fileOf(2, 10000)), "node-2" -> Seq(fileOf(3, 10000)))
    val end = Planner.plan(AofOffset.Empty, reports, limits(batch = Some(1000))).end
    assert(positions(end) === Map((host, 1L) -> 100L, (host, 2L) -> 450L, ("node-2", 3L) -> 450L))
  }

  test("fixed point: batch.bytes.max batches move every file on, to every last line") {
    // Fewer bytes than files: each file still moves at every trigger, none waits for the others.
    val reports = Map(host -> (1L to 4L).map(i => fileOf(i, i * 7)), "node-2" -> Seq(fileOf(9, 30)))
    val l = limits(batch = Some(3))
    var end = Planner.plan(AofOffset.Empty, reports, l).end
    var batches = 1
    var next = Planner.plan(end, reports, l).end
    while (next != end) {
      val (before, after) = (positions(end), positions(next))
      val unfinished = before.filter { case ((h, ino), pos) =>
        pos < (if (ino == 9) 30 else ino * 7)
      }
      assert(unfinished.keySet.forall(k => after(k) > before(k)), s"batch $batches starved a file")
      val read = unfinished.keySet.toSeq.map(k => after(k) - before(k)).sum
      assert(read <= math.max(3, unfinished.size), s"batch $batches read $read bytes")
      end = next
      next = Planner.plan(end, reports, l).end
      batches += 1
    }
    assert(
      positions(end) === (1L to 4L).map(i => (host, i) -> i * 7).toMap + (("node-2", 9L) -> 30L))
    assert(batches < 30, "the last files share what the finished ones left")
  }

  private def unreadable(size: Long) =
    FileMeta("/logs/app.log.1", key, size, 0, Fingerprint.Empty, None, unreadable = Some("no"))

  test("a file that cannot be read keeps its id and position, loses nothing") {
    val start = tracked(file(100, seen = 180))
    val result = plan(start, unreadable(500))
    val f = result.end.hosts(host).files(FileOffset.fileId(key, 0))
    assert(
      (f.path, f.pos, f.fingerprint, f.tail, f.seen) === ((
        "/logs/app.log.1",
        100L,
        head,
        Some(tail),
        180L)))
    assert(result.losses.isEmpty)
    val readable = plan(result.end, meta(500, 400, floor = Some(100)))
    assert(
      readable.end.hosts(host).files.values.map(f => (f.serial, f.pos)).toSeq === Seq((0L, 400L)))
  }

  test("a new file that cannot be read waits, and so does a copy of one") {
    assert(plan(otherFileOnHost, unreadable(500)).end.hosts(host).files.isEmpty)
    val waits = plan(tracked(300), unreadable(500), copy(350))
    assert(waits.end.hosts(host).files.values.map(_.key).toSeq === Seq(key))
    assert(waits.losses.isEmpty)
  }

  test("a renamed file keeps its id and offset under its new name") {
    val end = plan(tracked(100), meta(500, 400).copy(path = "/logs/app.log.1")).end
    val f = end.hosts(host).files(FileOffset.fileId(key, 0))
    assert((f.path, f.pos) === (("/logs/app.log.1", 400L)))
  }

  private val firstId = FileOffset.fileId(key, 0)

  /** Planned against an answer (to request `answer`) that looked for copies of `retired`. */
  private def lookedFor(start: AofOffset, retired: Set[String], answer: String, files: FileMeta*) =
    Planner.plan(start, Map(host -> files), limits(), Map(host -> CopiesLookedFor(answer, retired)))

  private def retiredOf(end: AofOffset) = end.hosts(host).retired

  test("a deleted file is retired, then forgotten with its unread bytes lost once none copies it") {
    val result = plan(tracked(file(100, seen = 180)))
    assert(result.end.hosts(host).files.isEmpty)
    assert(retiredOf(result.end).keySet === Set(firstId))
    assert(result.losses.isEmpty, "a copy of it may still show up")
    val none = lookedFor(result.end, Set(firstId), "a1")
    assert(retiredOf(none.end).isEmpty)
    assert(none.losses === Seq(Loss(host, "/logs/app.log", firstId, 100, 180)))
  }

  test("a replaced file loses the bytes of the old one that were not read, once none copies it") {
    val replaced = plan(tracked(file(100, seen = 180)), meta(50, 50, other))
    assert(replaced.losses.isEmpty)
    val result = lookedFor(replaced.end, Set(firstId), "a1", meta(60, 60, other))
    assert(result.losses.map(l => (l.from, l.until)) === Seq((100L, 180L)))
    val read = plan(tracked(file(180, seen = 180)), meta(50, 50, other))
    assert(lookedFor(read.end, Set(firstId), "a1", meta(60, 60, other)).losses.isEmpty)
  }

  test("a file given up with a copy the source does not read: the copy's bytes past it are lost") {
    val cut = plan(tracked(file(100, seen = 180)), meta(50, 50, other))
    def given(copy: UnmatchedCopy) = Planner
      .plan(
        cut.end,
        Map(host -> Seq(meta(60, 60, other))),
        limits(),
        Map(host -> CopiesLookedFor("a1", Set(firstId), Map(firstId -> copy))))
      .losses
    // (the copy's size, the bytes lost): what it holds past the position, or what was seen
    // past it when more than it holds
    val table = Seq(250L -> (100L, 250L), 150L -> (100L, 180L))
    table.foreach { case (size, (from, until)) =>
      val lost = given(UnmatchedCopy("/logs/app.log.1", size))
      assert(
        lost === Seq(Loss(host, "/logs/app.log", firstId, from, until, Some("/logs/app.log.1"))))
    }
    val read = plan(tracked(file(180, seen = 180)), meta(50, 50, other))
    val copy = UnmatchedCopy("/logs/app.log.1", 180)
    val none = Map(host -> CopiesLookedFor("a1", Set(firstId), Map(firstId -> copy)))
    assert(
      Planner.plan(read.end, Map(host -> Seq(meta(60, 60, other))), limits(), none).losses.isEmpty)
  }

  test("a file with no complete line yet, copied and cut: its copy is read from 0, nothing lost") {
    val cut = plan(tracked(file(0, seen = 180)), meta(0, 0, Fingerprint.Empty, tailAtFloor = None))
    assert(cut.losses.isEmpty && cut.end.hosts(host).files.isEmpty)
    val result = lookedFor(cut.end, Set(firstId), "a1", copyOfFirst(220))
    assert(result.losses.isEmpty)
    assert(result.end.hosts(host).files.values.map(f => (f.first, f.pos)).toSeq === Seq((0L, 220L)))
  }

  test("a file seen empty has no head to tell a copy by: gone, its bytes are lost at once") {
    val result = plan(tracked(file(0, Fingerprint.Empty, seen = 180)))
    assert(retiredOf(result.end).isEmpty)
    assert(result.losses.map(l => (l.from, l.until)) === Seq((0L, 180L)))
  }

  private def copyOfFirst(size: Long, path: String = "/logs/app.log.1", k: FileKey = copyKey) =
    FileMeta(path, k, size, size, head, None, copyOfRetired = Some(firstId))

  test("copytruncate, the copy shown an answer after the cut: it continues the retired file") {
    val start = tracked(file(300, seen = 350))
    // The answer shows app.log cut and written again, and not its copy (a listing missed it).
    val cut = plan(start, meta(40, 40, Fingerprint(40, "new"), tailAtFloor = None))
    val restarted = cut.end.hosts(host).files.values.map(f => (f.serial, f.first, f.pos)).toSeq
    assert(restarted === Seq((1L, 0L, 40L)))
    assert(cut.losses.isEmpty)
    assert(Planner.retired(cut.end, host) === Map(firstId -> KnownFile(key, 300, head, Some(tail))))
    val grown = meta(60, 60, Fingerprint(60, "new2"), Some(Fingerprint(40, "new")), None)
    val result = lookedFor(cut.end, Set(firstId), "a1", grown, copyOfFirst(400))
    assert(result.losses.isEmpty)
    assert(retiredOf(result.end).isEmpty)
    val ranges = Ranges.between(cut.end, result.end).map(r => (r.path, r.from, r.until))
    assert(ranges.toSet === Set(("/logs/app.log.1", 300L, 400L), ("/logs/app.log", 40L, 60L)))
  }

  test("a retired file is kept while answers that did not look for its copies come") {
    val cut = plan(tracked(file(300, seen = 350))).end
    assert(retiredOf(plan(cut).end) === retiredOf(cut), "planned again against the same answer")
    assert(retiredOf(lookedFor(cut, Set("other"), "a1").end) === retiredOf(cut))
  }

  test(
    "a file that starts like a retired one but is shorter waits, for a bounded number of answers") {
    val cut = plan(tracked(file(300, seen = 350))).end
    val short = copyOfFirst(200)
    var end = cut
    (1 until RetiredFile.MaxAsked).foreach { i =>
      val result = lookedFor(end, Set(firstId), s"a$i", short)
      assert(result.end.hosts(host).files.isEmpty, "it waits")
      assert(result.losses.isEmpty)
      assert(retiredOf(result.end)(firstId).asked === i)
      assert(lookedFor(result.end, Set(firstId), s"a$i", short).end === result.end, "counted once")
      end = result.end
    }
    val given = lookedFor(end, Set(firstId), "last", short)
    assert(retiredOf(given.end).isEmpty)
    assert(given.losses.map(l => (l.from, l.until)) === Seq((300L, 350L)))
    val unasked = FileMeta("/logs/app.log.1", copyKey, 200, 200, head, None)
    assert(plan(given.end, unasked).end.hosts(host).files.values.map(_.first).toSeq === Seq(0L))
  }

  test("two copies of one retired file at once: the first continues it, the other waits") {
    val cut = plan(tracked(file(300, seen = 350))).end
    val gz = copyOfFirst(350, "/logs/app.log.1.gz", FileKey(2049L, 79L))
    val result = lookedFor(cut, Set(firstId), "a1", copyOfFirst(350), gz)
    val files = result.end.hosts(host).files.values
    assert(files.map(f => (f.path, f.first)).toSeq === Seq(("/logs/app.log.1", 300L)))
  }

  test("an emptied tracked key waits and its file is retired: a rotation's .gz given its inode") {
    // app.log.2 (key) read whole and deleted; app.log.3.gz, not yet written, got its inode.
    val rotated = file(500, seen = 500).copy(path = "/logs/app.log.2")
    val b = FileOffset("/logs/app.log.3", copyKey, 1L, 0L, 900L, other, Some(tail), 900L)
    val start = tracked(rotated, b)
    val empty = FileMeta("/logs/app.log.3.gz", key, 0, 0, Fingerprint.Empty, None)
    val holding = FileMeta("/logs/app.log.3", copyKey, 900, 900, other, None)
    val emptied = plan(start, empty, holding)
    assert(emptied.end.hosts(host).files.values.map(_.key).toSeq === Seq(copyKey))
    assert(retiredOf(emptied.end).keySet === Set(firstId))
    // Written: a copy of app.log.3, which still holds; then app.log.3 deleted.
    val gz = FileMeta("/logs/app.log.3.gz", key, 900, 900, other, None, copyOf = Some(copyKey))
    val waiting = lookedFor(emptied.end, Set(firstId), "a1", gz, holding)
    assert(waiting.end.hosts(host).files.values.map(_.key).toSeq === Seq(copyKey))
    val result = plan(waiting.end, gz)
    assert(Ranges.between(waiting.end, result.end).isEmpty, "nothing of app.log.3 read again")
    assert(result.losses.isEmpty)
  }

  test("fixed point: a retired file and its copy, planned again against the same answer") {
    val cut = plan(tracked(file(300, seen = 350))).end
    val reports = Map(host -> Seq(copyOfFirst(400)))
    val end =
      Planner.plan(cut, reports, limits(), Map(host -> CopiesLookedFor("a1", Set(firstId)))).end
    assert(
      Planner
        .plan(end, reports, limits(), Map(host -> CopiesLookedFor("a1", Set(firstId))))
        .end === end)
  }

  test("a host that did not answer keeps its offsets") {
    val start = tracked(100)
    val end = Planner.plan(start, Map("node-2" -> Seq.empty), limits()).end
    assert(end.hosts(host) === start.hosts(host))
  }

  test("nodes to read that did not answer the query's first plan are tracked from it, empty") {
    val first = Planner.plan(
      noHosts,
      Map(host -> Seq(meta(500, 400))),
      limits(),
      Map.empty,
      expected = Set(host, "node-2"))
    assert(first.end.hosts("node-2") === HostOffsets.Empty)
    assert(first.end.hosts(host).files.values.map(_.pos).toSeq === Seq(400L))
    // Later (with latest), node-2's files are read from byte 0, as files created since are.
    val later = Planner.plan(
      first.end,
      Map("node-2" -> Seq(meta(500, 400))),
      limits(starting = Latest),
      Map.empty,
      expected = Set(host, "node-2", "node-3"))
    assert(
      later.end.hosts("node-2").files.values.map(f => (f.first, f.pos)).toSeq === Seq((0L, 400L)))
    assert(!later.end.hosts.contains("node-3"), "a node expected only later: starting.offsets")
    // A node seen first without having been expected from the start: starting.offsets.
    val stranger =
      Planner.plan(first.end, Map("node-4" -> Seq(meta(500, 400))), limits(starting = Latest))
    assert(stranger.end.hosts("node-4").files.values.map(_.first).toSeq === Seq(400L))
  }

  test("an inode reused by a new file gets a new id, never an old one") {
    val afterDelete = plan(tracked(file(100, serial = 4))).end
    val end = plan(afterDelete, meta(50, 50, Fingerprint(50, "new"))).end
    assert(end.hosts(host).files.keySet === Set(FileOffset.fileId(key, 5)))
  }

  private val copyKey = FileKey(2049L, 78L)
  private def copy(size: Long) =
    FileMeta("/logs/app.log.1", copyKey, size, size, head, None, copyOf = Some(key))

  test("copytruncate: the copy continues from the original's offset; the original restarts") {
    val start = tracked(file(300, seen = 350))
    val result = plan(start, meta(40, 40, Fingerprint(40, "new"), tailAtFloor = None), copy(350))
    val files = result.end.hosts(host).files.values.map(f => f.key -> f).toMap
    assert((files(copyKey).first, files(copyKey).pos) === ((300L, 350L)))
    assert((files(key).serial, files(key).first, files(key).pos) === ((1L, 0L, 40L)))
    assert(result.losses.isEmpty, "the copy holds what the original had not been read of")
    val ranges = Ranges.between(start, result.end).map(r => (r.path, r.from, r.until))
    assert(ranges.toSet === Set(("/logs/app.log.1", 300L, 350L), ("/logs/app.log", 0L, 40L)))
  }

  test("copytruncate: while the original still holds its content the copy waits") {
    val start = tracked(300)
    val end = plan(start, meta(400, 400), copy(350)).end
    assert(end.hosts(host).files.values.map(_.key).toSet === Set(key))
  }

  test("copytruncate: a copy caught half-written waits while the original holds") {
    val end = plan(tracked(300), meta(400, 400), copy(120)).end
    assert(end.hosts(host).files.values.map(_.key).toSet === Set(key))
  }

  // Both first seen in one answer, the node names the copy's original by a key not tracked.
  Seq(
    "new" -> otherFileOnHost,
    "under a reused key" -> tracked(file(90, other).copy(key = copyKey)))
    .foreach { case (what, start) =>
      test(s"copytruncate of a file first seen with its copy ($what): the copy waits, continues") {
        val first = plan(start, meta(300, 300), copy(350))
        assert(
          first.end.hosts(host).files.values.map(f => (f.key, f.first, f.pos)).toSeq ===
            Seq((key, 0L, 300L)))
        val cut = meta(40, 40, Fingerprint(40, "new"), tailAtFloor = None)
        val next = plan(first.end, cut, copy(350))
        val ranges = (Ranges.between(start, first.end) ++ Ranges.between(first.end, next.end))
          .map(r => (r.path, r.from, r.until))
        assert(
          ranges.toSet === Set(
            ("/logs/app.log", 0L, 300L),
            ("/logs/app.log.1", 300L, 350L),
            ("/logs/app.log", 0L, 40L)))
        assert(first.losses.isEmpty && next.losses.isEmpty)
      }
    }

  test("an empty new file waits until it has bytes (it may be a copy to come)") {
    val empty = FileMeta("/logs/new.log", copyKey, 0, 0, Fingerprint.Empty, None)
    assert(plan(tracked(300), meta(400, 400), empty).end.hosts(host).files.size === 1)
  }

  test("copytruncate: the original deleted, the copy continues from its offset") {
    val end = plan(tracked(300), copy(350)).end
    assert(end.hosts(host).files.values.map(f => (f.key, f.first)).toSeq === Seq((copyKey, 300L)))
  }

  test("a key reused by another tracked file's copy continues that file; waits while it holds") {
    val b = FileOffset("/logs/b.log", copyKey, 1L, 0L, 200L, other, Some(tail), 260L)
    val start = tracked(file(300, seen = 300), b)
    // b.log compressed into a file given app.log's inode, app.log gone (compressed too).
    val gz = FileMeta("/logs/b.log.gz", key, 260, 260, other, None, copyOf = Some(copyKey))
    val result = plan(start, gz)
    assert(result.losses.isEmpty)
    val files = result.end.hosts(host).files.values
    assert(files.map(f => (f.key, f.serial, f.first, f.pos)).toSeq === Seq((key, 2L, 200L, 260L)))
    val holding = FileMeta("/logs/b.log", copyKey, 260, 260, other, None)
    val waiting = plan(start, gz, holding)
    assert(waiting.end.hosts(host).files.values.map(_.key).toSeq === Seq(copyKey))
    assert(waiting.losses.isEmpty)
  }

  test("known files carry the floor and the fingerprints last seen") {
    assert(Planner.known(tracked(100), host) === Seq(KnownFile(key, 100, head, Some(tail))))
    assert(Planner.known(tracked(100), "node-2").isEmpty)
  }

  test("a tail about another position (a report planned against twice) is no evidence") {
    val stale = meta(500, 400, tailAtFloor = Some(other), floor = Some(100))
    assert(plan(tracked(300), stale).end.hosts(host).files.values.head.serial === 0L)
  }

  test("the tail kept is the one at the planned position") {
    val m = meta(500, 400).copy(tailAtLineEnd = Some(Fingerprint(1024, "at400")))
    assert(
      plan(tracked(100), m).end.hosts(host).files.values.head.tail.map(_.md5) === Some("at400"))
    val capped =
      Planner.plan(tracked(100), Map(host -> Seq(lines(m))), limits(bytesMax = Some(10))).end
    assert(capped.hosts(host).files.values.head.tail === None)
  }

  test(
    "an idle file keeps its offset object, and an idle host its offsets (compared by reference)") {
    val start = tracked(file(400, seen = 500))
    val idle = plan(start, meta(500, 400)).end
    assert(idle.hosts(host) eq start.hosts(host))
    val moved = plan(start, meta(600, 600)).end.hosts(host)
    assert(!(moved eq start.hosts(host)))
    assert(moved.files.values.map(_.pos).toSeq === Seq(600L))
  }

  test("hosts planned at once: each host's plan as if planned alone, losses in order") {
    val hosts = (1 to 200).map(i => s"node-$i")
    val start = AofOffset(hosts.map(h => h -> tracked(file(100, seen = 300)).hosts(host)).toMap)
    val reports = hosts.zipWithIndex.map { case (h, i) =>
      h -> (if (i % 2 == 0) Seq(meta(500, 400)) else Seq.empty)
    }.toMap
    val looked = hosts.map(h => h -> CopiesLookedFor("a1", Set(firstId))).toMap
    val retired = Planner.plan(start, reports, limits()).end
    val together = Planner.plan(retired, reports, limits(), looked)
    hosts.foreach { h =>
      val alone = Planner.plan(
        AofOffset(Map(h -> retired.hosts(h))),
        Map(h -> reports(h)),
        limits(),
        Map(h -> looked(h)))
      assert(together.end.hosts(h) === alone.end.hosts(h))
    }
    assert(together.losses.map(_.host) === hosts.filter(h => reports(h).isEmpty).sorted)
  }

  test("planning is a pure function of its inputs") {
    val reports = Map(host -> Seq(meta(500, 400)))
    assert(
      Planner.plan(tracked(100), reports, limits()) === Planner
        .plan(tracked(100), reports, limits()))
  }
}
