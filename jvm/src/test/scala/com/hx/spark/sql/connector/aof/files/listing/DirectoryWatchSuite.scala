package com.hx.spark.sql.connector.aof.files.listing

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.util.concurrent.{LinkedBlockingQueue, TimeUnit}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{Spark4Only, TempDirectories}

/**
 * The JVM's one inotify watch: a listener that hears each directory once between its
 * registrations costs one event however many writes follow, while one that hears every change
 * (real-time mode's follower) on the same directory hears them all.
 */
@Spark4Only
class DirectoryWatchSuite extends AnyFunSuite with TempDirectories {
  private val root = tempDirectory("aof-watch-")
  // Far longer than an event takes to come: what did not come by then would not.
  private val eventMs = 2000L

  private def append(dir: Path, line: String): Unit =
    Files.write(
      dir.resolve("app.log"),
      s"$line\n".getBytes(UTF_8),
      StandardOpenOption.CREATE,
      StandardOpenOption.APPEND)

  private def heard(events: LinkedBlockingQueue[Boolean]): Boolean =
    events.poll(eventMs, TimeUnit.MILLISECONDS) != null

  test("a directory heard once is heard again only after the next registration") {
    val dir = Files.createDirectories(root.resolve("once"))
    val events = new LinkedBlockingQueue[Boolean]()
    val first = DirectoryWatch.register(Seq(dir), (_, layout) => events.put(layout), once = true)
    append(dir, "one")
    assert(heard(events))
    (2 to 20).foreach(i => append(dir, s"line $i"))
    assert(!heard(events), "a write after the first was heard")
    val again = DirectoryWatch.register(Seq(dir), (_, layout) => events.put(layout), once = true)
    first.close()
    append(dir, "two")
    assert(heard(events))
    again.close()
  }

  test("a listener of every change hears them all beside one that hears once") {
    val dir = Files.createDirectories(root.resolve("both"))
    val (once, every) = (new LinkedBlockingQueue[Boolean](), new LinkedBlockingQueue[Boolean]())
    val onceWatch = DirectoryWatch.register(Seq(dir), (_, layout) => once.put(layout), once = true)
    val everyWatch = DirectoryWatch.register(Seq(dir), (_, layout) => every.put(layout))
    append(dir, "one")
    assert(heard(once) && heard(every))
    append(dir, "two")
    assert(heard(every))
    assert(!heard(once))
    onceWatch.close()
    everyWatch.close()
  }

  test("watched again: a directory heard once is heard again, one made since is watched too") {
    val (a, b) = (root.resolve("again/a"), root.resolve("again/b"))
    Seq(a, b).foreach(Files.createDirectories(_))
    val events = new LinkedBlockingQueue[Path]()
    val files = SourceFiles(Seq(PathPattern(s"${root.resolve("again")}/*", "app\\.log")))
    val first = DirectoryWatch.registerFor(files, (dir, _) => events.put(dir), once = true)
    append(a, "one")
    assert(events.poll(eventMs, TimeUnit.MILLISECONDS) === a)
    append(a, "two")
    assert(events.poll(eventMs, TimeUnit.MILLISECONDS) === null, "a write after the first")
    val again = first.again().get
    append(a, "three")
    assert(events.poll(eventMs, TimeUnit.MILLISECONDS) === a)
    append(b, "one")
    assert(events.poll(eventMs, TimeUnit.MILLISECONDS) === b)
    // A directory made where the pattern looks, heard where it was made.
    val c = Files.createDirectories(root.resolve("again/c"))
    assert(events.poll(eventMs, TimeUnit.MILLISECONDS) === root.resolve("again"))
    val third = again.again().get
    append(c, "one")
    assert(events.poll(eventMs, TimeUnit.MILLISECONDS) === c)
    third.close()
  }

  test("a directory that cannot be watched is heard through the nearest one above it") {
    val missing = root.resolve("above").resolve("not-yet")
    Files.createDirectories(missing.getParent)
    val events = new LinkedBlockingQueue[Boolean]()
    val watch =
      DirectoryWatch.register(Seq(missing), (_, layout) => events.put(layout), once = true)
    assert(!watch.complete)
    Files.createDirectories(missing)
    assert(heard(events), "its making was not heard")
    assert(watch.again().isEmpty, "renewed by parts, where one is watched in another's stead")
    watch.close()
  }
}
