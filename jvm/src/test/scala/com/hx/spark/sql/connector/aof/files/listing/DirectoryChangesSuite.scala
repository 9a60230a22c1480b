package com.hx.spark.sql.connector.aof.files.listing

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.nio.file.attribute.FileTime

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.cleanup.Cleanup
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, FileStamp, KnownFile}
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, Spark4Only, TempDirectories}

/**
 * A look told which directories changed lists and stats only those, and takes the others as the
 * looks before found them; what no watch can tell makes it whole.
 */
@Spark4Only
class DirectoryChangesSuite extends AnyFunSuite {

  private def write(file: Path, text: String): Path =
    Files.write(file, text.getBytes(UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND)

  /** Three directories of two files each, the files statted and the directories listed. */
  private final class Node(root: Path, cleanup: Option[Cleanup] = None) {
    val dirs: Seq[Path] = Seq("a", "b", "c").map(d => Files.createDirectories(root.resolve(d)))
    dirs.foreach(d => Seq("app.log", "app.log.1").foreach(f => write(d.resolve(f), s"$d $f\n")))
    // Each rotated file a minute older than its live one, as a rotation leaves them: written in
    // one tick of the file clock or not, the live one is the newest (what cleanup keeps).
    dirs.foreach { d =>
      val live = Files.getLastModifiedTime(d.resolve("app.log")).toMillis
      Files.setLastModifiedTime(d.resolve("app.log.1"), FileTime.fromMillis(live - 60000L))
    }
    val statted: mutable.ArrayBuffer[Path] = mutable.ArrayBuffer.empty
    val listings: mutable.ArrayBuffer[Path] = mutable.ArrayBuffer.empty
    val changes = new DirectoryChanges
    var failNext = false
    private var fileTimeAheadMs = 0L
    val clock = new MovingClock
    // The directories in the order a look goes through them, as the first look listed them.
    var order: Seq[Path] = Nil
    val scanner = new DirectoryScanner(
      SourceFiles(Seq(PathPattern(s"$root/*", "app\\.log.*"))),
      1024,
      listed = { paths =>
        if (failNext) {
          failNext = false
          throw new UnlistedDirectory("a directory cannot be listed (Permission denied)")
        }
        listings ++= paths.headOption.map(_.getParent)
        paths
      },
      stat = { p =>
        statted += p
        FileStamp.of(p)
      },
      clock = clock,
      cleanup = cleanup,
      changes = Some(changes),
      fileTimeMs = () => System.currentTimeMillis() + fileTimeAheadMs
    )

    def scan(known: Seq[KnownFile] = Nil, remove: Set[FileKey] = Set.empty): Seq[FileMeta] = {
      statted.clear()
      listings.clear()
      scanner.scan(known, remove = remove)
    }

    /**
     * The first look, whole; then one asked about what it found, once the files are quiet, so
     * that nothing is new and nothing settles.
     */
    def tracked(): Seq[KnownFile] = {
      clock.advance(1000L)
      val first = scan()
      assert(first.size === 6 && listings.size === 3)
      order = listings.toList
      val known = first.map(m => KnownFile(m.key, m.lineEnd, m.fingerprint, m.tailAtLineEnd))
      scan(known)
      known
    }

    /** From now on, each directory's last change is long past, as a quiet node's are. */
    def settle(): Unit = fileTimeAheadMs = 60000L

    def sizes(metas: Seq[FileMeta]): Map[String, Long] =
      metas.map(m => root.relativize(Paths.get(m.path)).toString -> m.size).toMap
  }

  private def withNode[T](body: (Path, Node) => T): T = {
    val root = Files.createTempDirectory("changes-")
    try body(root, new Node(root))
    finally TempDirectories.delete(root)
  }

  test("the first look is whole; then only the directories heard are listed and statted") {
    withNode { (root, node) =>
      val first = node.tracked()
      val a = node.dirs.head
      write(a.resolve("app.log"), "more\n")
      write(node.dirs(1).resolve("app.log"), "not heard yet\n")
      node.changes.heard(a, layout = false)
      val metas = node.scan(first)
      assert(node.listings === Seq(a))
      assert(node.statted.map(_.getParent).distinct === Seq(a))
      // The look is a past one where no watch told: b's write shows at the look that hears it.
      val sizes = node.sizes(metas)
      assert(sizes("a/app.log") === s"$a app.log\nmore\n".length)
      assert(sizes("b/app.log") === s"${node.dirs(1)} app.log\n".length)
      node.changes.heard(node.dirs(1), layout = false)
      assert(node.sizes(node.scan(first))("b/app.log") > sizes("b/app.log"))
      // A directory heard is listed by two looks: the watch hears it again from the next on.
      assert(node.listings.toSet === Set(a, node.dirs(1)))
      node.scan(first)
      assert(node.listings === Seq(node.dirs(1)))
      node.scan(first)
      assert(node.listings.isEmpty)
    }
  }

  test("a directory not heard is taken as answered while the driver asks the same of its files") {
    withNode { (_, node) =>
      val known = node.tracked()
      // Kept as answered to this request from this look on; taken from the next.
      node.scan(known)
      assert(node.scanner.takenByLastScan === 0)
      node.scan(known)
      assert(node.scanner.takenByLastScan === 3)
      // The driver's request of b's live file changes (here: its floor); a's bytes change.
      val (a, b) = (node.dirs(0), node.dirs(1))
      val bLog = FileKey.of(b.resolve("app.log"))
      val asked = known.map(k => if (k.key == bLog) k.copy(floor = 0L) else k)
      write(a.resolve("app.log"), "more\n")
      node.changes.heard(a, layout = false)
      val metas = node.scan(asked)
      assert(metas.find(_.key == bLog).flatMap(_.floor) === Some(0L))
      assert(node.scanner.takenByLastScan === 1) // c only
      assert(node.sizes(metas)("a/app.log") === s"$a app.log\nmore\n".length)
      // Asked the same again (the same objects, as the exchange gives them): b's new answer is
      // kept, and taken from the look after; a's once the watch no longer names it (two looks).
      node.scan(asked)
      assert(node.scanner.takenByLastScan === 1)
      node.scan(asked)
      assert(node.scanner.takenByLastScan === 2)
      assert(node.scan(asked).find(_.key == bLog).flatMap(_.floor) === Some(0L))
      assert(node.scanner.takenByLastScan === 3)
    }
  }

  test(
    "a question changed otherwise than file by file doubts only the changed files' directories") {
    withNode { (_, node) =>
      val known = node.tracked()
      node.scan(known)
      node.scan(known)
      assert(node.scanner.takenByLastScan === 3)
      // The same files in another order, one asked otherwise: b's files are asked, a's and c's
      // taken without a request to each.
      val bLog = FileKey.of(node.dirs(1).resolve("app.log"))
      val reordered = known.reverse.map(k => if (k.key == bLog) k.copy(floor = 0L) else k)
      assert(node.scan(reordered).find(_.key == bLog).flatMap(_.floor) === Some(0L))
      assert(node.scanner.takenByLastScan === 2 && node.scanner.doubtedByLastScan === 1)
      // b's new answer kept by the next look, taken from the one after.
      node.scan(reordered)
      node.scan(reordered)
      assert(node.scanner.takenByLastScan === 3 && node.scanner.doubtedByLastScan === 0)
      // One file fewer (the driver gave up c's rotated file, as at a rotation): c only.
      val cOld = FileKey.of(node.dirs(2).resolve("app.log.1"))
      val fewer = reordered.filterNot(_.key == cOld)
      node.scan(fewer)
      assert(node.scanner.takenByLastScan === 2 && node.scanner.doubtedByLastScan === 1)
    }
  }

  test("a file of a kept directory found afresh in another (a hard link) is answered once") {
    withNode { (_, node) =>
      node.settle() // b and c are not listed again when a look must see every name
      val known = node.tracked()
      node.scan(known)
      node.scan(known)
      assert(node.scanner.takenByLastScan === 3)
      // Linked from the directory a look reaches last into the one it reaches first.
      val (first, last) = (node.order.head, node.order.last)
      Files.createLink(first.resolve("app.log.2"), last.resolve("app.log.1"))
      node.changes.heard(first, layout = false)
      val metas = node.scan(known)
      assert(metas.map(_.key).distinct.size === metas.size)
      assert(metas.size === 6)
      assert(node.scanner.takenByLastScan === 1) // the middle one
    }
  }

  test("nothing heard: nothing listed or statted, the same files found") {
    withNode { (_, node) =>
      val first = node.tracked()
      val again = node.scan(first)
      assert(node.listings.isEmpty && node.statted.isEmpty)
      assert(again.map(_.key).toSet === first.map(_.key).toSet)
    }
  }

  test("events lost, a directory made or one on the way heard, a look asked whole: all listed") {
    withNode { (root, node) =>
      val first = node.tracked()
      node.changes.heard(node.dirs.head, layout = true)
      node.scan(first)
      assert(node.listings.size === 3)
      // The root: a directory may have been made or renamed in it.
      node.changes.heard(root, layout = false)
      node.scan(first)
      assert(node.listings.size === 3)
      node.changes.all()
      node.scan(first)
      assert(node.listings.size === 3 && node.statted.size === 6)
    }
  }

  test("a file made in a directory heard: each directory a name changed in is listed again") {
    withNode { (_, node) =>
      node.settle()
      val first = node.tracked()
      val (a, b, c) = (node.dirs(0), node.dirs(1), node.dirs(2))
      write(a.resolve("app.log.2"), "new\n")
      Files.move(b.resolve("app.log.1"), b.resolve("app.log.3"))
      write(c.resolve("app.log"), "not heard yet\n")
      node.changes.heard(a, layout = false)
      val sizes = node.sizes(node.scan(first))
      // a, then a and b: c's write changes no name there, and shows once heard.
      assert(node.listings.sorted === Seq(a, a, b))
      assert(sizes.contains("a/app.log.2") && sizes.contains("b/app.log.3"))
      assert(sizes("c/app.log") === s"$c app.log\n".length)
    }
  }

  test("a tracked file renamed into a directory not heard yet is found: its stamp changed") {
    withNode { (_, node) =>
      node.settle()
      val first = node.tracked()
      val (a, b) = (node.dirs(0), node.dirs(1))
      Files.move(a.resolve("app.log.1"), b.resolve("app.log.2"))
      node.changes.heard(a, layout = false) // b's event still on its way
      val metas = node.scan(first)
      assert(metas.size === 6, metas.map(_.path))
      assert(metas.exists(_.path == b.resolve("app.log.2").toString))
      assert(node.listings.sorted === Seq(a, a, b))
    }
  }

  test("a directory listed in the tick it changed is listed again: its stamp cannot tell") {
    withNode { (_, node) =>
      val first = node.tracked()
      val (a, b, c) = (node.dirs(0), node.dirs(1), node.dirs(2))
      // Made a moment ago, the directories' times are those of the looks' listings: each look
      // that must see every name lists b and c again, as it lists a, where a tracked file went.
      Files.delete(a.resolve("app.log.1"))
      node.changes.heard(a, layout = false)
      assert(node.scan(first).size === 5)
      assert(node.listings.count(_ == b) === node.listings.count(_ == a) - 1)
      assert(node.listings.count(_ == c) === node.listings.count(_ == b))
      // Their last changes long past: b and c are taken as they were.
      node.settle()
      node.changes.all()
      node.scan(first)
      node.changes.heard(a, layout = false)
      node.scan(first)
      assert(node.listings.nonEmpty && node.listings.forall(_ == a))
    }
  }

  test("with retired files, the look lists the directories heard and those a name changed in") {
    withNode { (_, node) =>
      node.settle()
      val first = node.tracked()
      val (a, b) = (node.dirs(0), node.dirs(1))
      val gone = a.resolve("app.log.1")
      val id = first.find(_.key == FileKey.of(gone)).get
      // Copied into b (its event on its way, b not heard), then deleted: retired by the driver.
      Files.copy(gone, b.resolve("app.log.2"))
      Files.delete(gone)
      node.listings.clear()
      val metas = node.scanner.scan(first.filterNot(_ eq id), retired = Map("retired" -> id))
      val copy = metas.find(_.path == b.resolve("app.log.2").toString)
      assert(copy.flatMap(_.copyOfRetired) === Some("retired"))
      assert(!node.listings.contains(node.dirs(2)))
    }
  }

  // Root lists every directory whatever its permissions: the failure is placed in the listing.
  test("a look that fails has the next list everything again") {
    withNode { (_, node) =>
      val first = node.tracked()
      node.changes.heard(node.dirs.head, layout = false)
      node.failNext = true
      intercept[UnlistedDirectory](node.scan(first))
      assert(node.scan(first).size === 6 && node.listings.size === 3)
    }
  }

  test("what cleanup removed is listed again at the next look, heard or not") {
    val root = Files.createTempDirectory("changes-")
    try {
      val after = 60000L
      val node = new Node(root, Some(Cleanup(None, after)))
      val metas = node.scan()
      // Every file read to its end, the time cleanup.after waits gone by.
      val all = metas.map(m => KnownFile(m.key, m.size, m.fingerprint, m.tailAtLineEnd))
      node.scan(all)
      node.clock.advance(after + 60000L)
      val a = node.dirs.head
      val rotated = metas.filter(_.path == a.resolve("app.log.1").toString).map(_.key).toSet
      assert(node.scan(all, remove = rotated).size === 5)
      assert(node.scanner.removedByLastScan.toSet === rotated)
      val next = node.scan(all.filterNot(k => rotated(k.key)))
      assert(node.listings === Seq(a))
      assert(next.size === 5)
    } finally TempDirectories.delete(root)
  }
}
