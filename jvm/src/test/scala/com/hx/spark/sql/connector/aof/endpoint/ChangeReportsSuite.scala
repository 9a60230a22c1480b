package com.hx.spark.sql.connector.aof.endpoint

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.Watcher
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.ReadSettings
import com.hx.spark.sql.connector.aof.driver.Coordinator
import com.hx.spark.sql.connector.aof.driver.Look
import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, FileStamp, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.{PathPattern, SourceFiles}
import com.hx.spark.sql.connector.aof.files.records.RecordRule
import com.hx.spark.sql.connector.aof.protocol.{MessageSeal, Messages, ZkPaths, ZnodeValues}
import com.hx.spark.sql.connector.aof.testkit.{Logged, TempDirectories, ZooKeeperFixture}
import com.hx.spark.sql.connector.aof.testkit.Polling.eventually

/**
 * Endpoints that report changes, against a real ZooKeeper server and real files: a request
 * stands until what the driver tracks changes, a node answers it again when its files change, and
 * an idle node writes nothing.
 */
class ChangeReportsSuite extends AnyFunSuite with ZooKeeperFixture with TempDirectories {
  private val root = tempDirectory("aof-changes-")
  private lazy val client: CuratorFramework = zkClient("/changes")
  private val key = MessageSeal.newKey()
  private var runs = 0
  // Several hosts of one run in this JVM: endpoints made here, not through the JVM's registry.
  private var endpoints = List.empty[NodeEndpoint]

  override protected def afterAll(): Unit =
    try endpoints.foreach(_.shutdown())
    finally super.afterAll()

  /** A run with an endpoint serving each host, each host with a directory of one file. */
  private def served(hosts: String*): (Coordinator, ZkPaths, Map[String, Path]) =
    servedWith(None, hosts: _*)

  private def servedWith(
      endpointClient: Option[CuratorFramework],
      hosts: String*): (Coordinator, ZkPaths, Map[String, Path]) =
    servedAs(endpointClient, SourceFiles(_, "app.*"), None, hosts: _*)

  /** [[served]], each host's files those `files` names in its directory, read as `records`. */
  private def servedAs(
      endpointClient: Option[CuratorFramework],
      files: Path => SourceFiles,
      records: Option[RecordRule],
      hosts: String*): (Coordinator, ZkPaths, Map[String, Path]) = {
    runs += 1
    val metaStore = s"/changes/$runs"
    val coordinator = new Coordinator(client, metaStore, s"changes-$runs", key)
    coordinator.start()
    val dirs = hosts.map { h =>
      val dir = Files.createDirectories(root.resolve(s"$runs-$h"))
      Files.write(dir.resolve("app.log"), "one\n".getBytes(UTF_8))
      h -> dir
    }.toMap
    // Past the time a file's stamp needs to tell a later write: no look's answer changes with
    // time alone, but a record's flush.
    eventually("the files settled", 10000) {
      dirs.values.forall(d =>
        FileStamp.of(d.resolve("app.log")).quietMs(System.currentTimeMillis()) > 150L)
    }
    dirs.foreach { case (h, dir) =>
      val spec = EndpointSpec(s"changes-$runs", zk.access, metaStore, files(dir), 1024, key)
        .copy(read = ReadSettings(grouping = records))
      val endpoint = new NodeEndpoint(spec, h, () => (), endpointClient)
      endpoints ::= endpoint
      endpoint.start()
    }
    Rounds.awaitHosts(coordinator, hosts.toSet, 10000)
    (coordinator, ZkPaths(metaStore, s"changes-$runs"), dirs)
  }

  private def known(files: Seq[FileMeta]): Seq[KnownFile] =
    files.map(f => KnownFile(f.key, f.lineEnd, f.fingerprint, None))

  /**
   * Every host's first answer taken, then the driver's request moved to where those end and
   * answered (as the trigger after a host's first batch asks): what later triggers ask, and the
   * hosts that answered it with news.
   */
  private def caughtUp(
      coordinator: Coordinator,
      hosts: String*): (Map[String, Seq[KnownFile]], Set[String]) = {
    val first = Rounds.collect(coordinator, hosts.map(_ -> Seq.empty[KnownFile]).toMap, 10000)
    val asked = first.map { case (h, files) => h -> known(files) }
    (asked, coordinator.answers(coordinator.ask(asked), 10000).files.keySet)
  }

  private def version(path: String): Long = client.checkExists().forPath(path).getMzxid

  /** A host's count of changes, 0 before it raised one. */
  private def count(path: String): Long =
    Option(client.checkExists().forPath(path)).fold(0L)(_ =>
      new String(client.getData.forPath(path), UTF_8).toLong)

  private def append(dir: Path, text: String): Unit =
    Files.write(dir.resolve("app.log"), text.getBytes(UTF_8), StandardOpenOption.APPEND)

  test("an idle host is sent nothing and writes nothing, trigger after trigger") {
    val (coordinator, paths, _) = served("idle-a", "idle-b")
    val (asked, answered) = caughtUp(coordinator, "idle-a", "idle-b")
    assert(answered === Set("idle-a", "idle-b"))
    val written = Seq("idle-a", "idle-b").flatMap(h => Seq(paths.request(h), paths.answer(h)))
    val before = written.map(version)
    (1 to 5).foreach { _ =>
      val sent = coordinator.ask(asked)
      assert(sent.hosts.isEmpty)
      assert(coordinator.answers(sent, 200).files.isEmpty)
    }
    assert(written.map(version) === before)
    assert(coordinator.current === Set("idle-a", "idle-b"))
    coordinator.stop()
  }

  test("a host whose file grows tells the driver by itself; the others say nothing") {
    val (coordinator, paths, dirs) = served("grow-a", "grow-b")
    val (asked, _) = caughtUp(coordinator, "grow-a", "grow-b")
    val quiet = version(paths.answer("grow-b"))
    val requests = Seq("grow-a", "grow-b").map(h => version(paths.request(h)))
    append(dirs("grow-a"), "two\n")
    var news = Map.empty[String, Seq[FileMeta]]
    eventually("the grown file's news", 10000) {
      news ++= coordinator.answers(coordinator.ask(asked), 100).files
      news.get("grow-a").exists(_.exists(_.lineEnd == 8L))
    }
    assert(news.keySet === Set("grow-a"))
    assert(Seq("grow-a", "grow-b").map(h => version(paths.request(h))) === requests)
    assert(version(paths.answer("grow-b")) === quiet)
    coordinator.stop()
  }

  test("a file written all the time is looked at once a trigger, not once a write") {
    val (coordinator, paths, dirs) = served("busy")
    val endpoint = endpoints.head
    val (asked, _) = caughtUp(coordinator, "busy")
    coordinator.answers(coordinator.ask(asked), 10000) // the start's own change, if not seen yet
    val (looks, answered, said) =
      (endpoint.looksSoFar, version(paths.answer("busy")), count(paths.changed("busy")))
    (1 to 12).foreach(i => append(dirs("busy"), s"line $i\n"))
    // Heard by the driver too (a watch's event): its next call calls the host to look.
    eventually("the host's word that its files changed, heard", 10000) {
      coordinator.changesHeard("busy") > said
    }
    assert(endpoint.looksSoFar === looks)
    assert(version(paths.answer("busy")) === answered)
    assert(count(paths.changed("busy")) === said + 1)
    val news = coordinator.answers(coordinator.ask(asked), 10000)
    assert(news.files("busy").head.lineEnd === Files.size(dirs("busy").resolve("app.log")))
    assert(endpoint.looksSoFar === looks + 1)
    coordinator.stop()
  }

  test("a host that answered a trigger's request is called for a later change at the next") {
    val (coordinator, paths, dirs) = served("asked")
    val endpoint = endpoints.head
    val (asked, _) = caughtUp(coordinator, "asked")
    coordinator.answers(coordinator.ask(asked), 10000) // the start's own change, if not seen yet
    val (looks, answered, said) =
      (endpoint.looksSoFar, version(paths.answer("asked")), count(paths.changed("asked")))
    // A new request, answered; then a write after its look, as a busy file has, before the
    // driver reads the answer.
    val again = Map("asked" -> Seq.empty[KnownFile])
    val sent = coordinator.ask(again)
    assert(sent.hosts === Set("asked"))
    eventually("the request answered", 10000)(version(paths.answer("asked")) > answered)
    append(dirs("asked"), "two\n")
    // Heard by the driver before it reads the answer: its next call would call the host now.
    eventually("the host's word that its files changed, heard", 10000) {
      coordinator.changesHeard("asked") > said
    }
    assert(coordinator.answers(sent, 10000).heard === Set("asked"))
    assert(coordinator.latest("asked").map(_.lineEnd) === Seq(4L))
    assert(endpoint.looksSoFar === looks + 1)
    assert(coordinator.answers(coordinator.ask(again), 10000).files("asked").head.lineEnd === 8L)
    assert(endpoint.looksSoFar === looks + 2)
    coordinator.stop()
  }

  test("a host called for its change lists what its watch heard; a look at every host is whole") {
    val (coordinator, _, dirs) = served("part")
    val endpoint = endpoints.head
    val (asked, _) = caughtUp(coordinator, "part")
    coordinator.answers(coordinator.ask(asked), 10000) // the start's own change, if not seen yet
    val (looks, whole) = (endpoint.looksSoFar, endpoint.wholeLooksSoFar)
    append(dirs("part"), "two\n")
    // A look called for another change (the file going quiet) may come before the write is heard.
    var news = Seq.empty[FileMeta]
    eventually("the grown file's news", 10000) {
      news ++= coordinator.answers(coordinator.ask(asked), 100).files.getOrElse("part", Nil)
      news.exists(_.lineEnd == 8L)
    }
    assert(endpoint.looksSoFar > looks && endpoint.wholeLooksSoFar === whole)
    // No news: the trigger has every host look, and that look covers what no watch told yet.
    val before = endpoint.looksSoFar
    coordinator.answers(coordinator.ask(asked), 10000, Look.AfterWait)
    assert(endpoint.looksSoFar === before + 1 && endpoint.wholeLooksSoFar > whole)
    coordinator.stop()
  }

  test("a quiet query has every host look once after news, then only waits for news") {
    val (coordinator, paths, dirs) = served("quiet-a", "quiet-b")
    val (asked, _) = caughtUp(coordinator, "quiet-a", "quiet-b")
    def quietTrigger() = coordinator.answers(coordinator.ask(asked), 10000, Look.AfterWait)
    val before = version(paths.look)
    assert(quietTrigger().files.isEmpty)
    val looked = version(paths.look)
    assert(looked !== before)
    (1 to 2).foreach(_ => assert(quietTrigger().files.isEmpty))
    assert(version(paths.look) === looked)
    append(dirs("quiet-b"), "two\n")
    var news = Map.empty[String, Seq[FileMeta]]
    eventually("the grown file's news", 10000) {
      news ++= quietTrigger().files
      news.contains("quiet-b")
    }
    assert(news.keySet === Set("quiet-b"))
    assert(version(paths.look) === looked)
    assert(quietTrigger().files.isEmpty)
    assert(version(paths.look) !== looked)
    coordinator.stop()
  }

  test("a last record written before the endpoint started is told once quiet, with no write") {
    // Records of continuation lines: the file's one line is a record whose end only time tells.
    val rule = RecordRule(Some("^ "), patternStarts = false, 1 << 20, 5000L, 1 << 20, None)
    val (coordinator, _, _) = servedAs(None, SourceFiles(_, "app.*"), Some(rule), "flush")
    val (asked, _) = caughtUp(coordinator, "flush")
    assert(asked("flush").map(_.floor) === Seq(0L), "looked at before the flush time passed")
    def quietTrigger() = coordinator.answers(coordinator.ask(asked), 1000, Look.AfterWait)
    // Far less than a look every LookTimes.FallbackMs: the look that held it said when.
    eventually("the record flushed", 20000) {
      quietTrigger()
      coordinator.latest("flush").map(_.lineEnd) == Seq(4L)
    }
    coordinator.stop()
  }

  test("a directory made after the endpoint started is watched from then on") {
    val pattern = (dir: Path) => SourceFiles(Seq(PathPattern(s"$dir/*", "app.*")))
    val (coordinator, _, dirs) = servedAs(None, pattern, None, "later")
    val endpoint = endpoints.head
    val (asked, _) = caughtUp(coordinator, "later")
    val made = Files.createDirectories(dirs("later").resolve("made-later"))
    Files.write(made.resolve("app.log"), "one\n".getBytes(UTF_8))
    def heard(end: Long): Unit = eventually(s"the new directory's file at $end", 10000) {
      coordinator.answers(coordinator.ask(asked), 100)
      coordinator
        .latest("later")
        .exists(f =>
          f.path == made.resolve("app.log").toString &&
            f.lineEnd == end)
    }
    heard(4L)
    // The note once the files went quiet is past: only a watch tells now.
    eventually("the note once the files went quiet", 10000)(!endpoint.settling)
    // Within the wait, far less than a look every LookTimes.FallbackMs: the watch told it.
    Files.write(made.resolve("app.log"), "two\n".getBytes(UTF_8), StandardOpenOption.APPEND)
    heard(8L)
    coordinator.stop()
  }

  test("a look has every endpoint answer: with its news, or to say it looked") {
    val (coordinator, paths, dirs) = served("look-a", "look-b")
    val (asked, _) = caughtUp(coordinator, "look-a", "look-b")
    append(dirs("look-b"), "two\n")
    val answers = coordinator.answers(coordinator.ask(asked), 10000, Look.Now)
    assert(answers.heard === Set("look-a", "look-b"))
    assert(answers.files("look-b").head.lineEnd === 8L)
    val answer = Messages.decodeAnswer(client.getData.forPath(paths.answer("look-a")), key)
    assert(answer.look >= 1L)
    assert(coordinator.latest("look-a").head.lineEnd === 4L)
    coordinator.stop()
  }

  test("a call to look numbered by anybody else makes a host look once, and holds nothing back") {
    val (coordinator, paths, dirs) = served("forged-call")
    val (asked, _) = caughtUp(coordinator, "forged-call")
    val anybody = zkClient("/elsewhere")
    val forged = Long.MaxValue.toString.getBytes(UTF_8)
    Seq(paths.look, paths.pull("forged-call")).foreach { call =>
      if (anybody.checkExists().forPath(call) == null) anybody.create().forPath(call, forged)
      else anybody.setData().forPath(call, forged)
    }
    append(dirs("forged-call"), "two\n")
    val answers = coordinator.answers(coordinator.ask(asked), 10000, Look.Now)
    assert(answers.heard === Set("forged-call"))
    assert(answers.files("forged-call").head.lineEnd === 8L)
    coordinator.stop()
  }

  // A host pulled right after a change looks once the change is settled: after a call to look at
  // every host, if that came meanwhile. The pull's answer keeps the call's number.
  test("a pull answered after a call to look at every host: the call's answer still holds") {
    val (coordinator, paths, dirs) = served("late-pull")
    val (asked, _) = caughtUp(coordinator, "late-pull")
    append(dirs("late-pull"), "two\n")
    ZnodeValues.put(client, paths.pull("late-pull"), "1000".getBytes(UTF_8))
    val answers = coordinator.answers(coordinator.ask(asked), 10000, Look.Now)
    assert(answers.heard === Set("late-pull"))
    // The last pull written (this one, or the driver's own since), answered in its turn.
    def number(call: String) = new String(client.getData.forPath(call), UTF_8).toLong
    def answer = Messages.decodeAnswer(client.getData.forPath(paths.answer("late-pull")), key)
    eventually("the pull's answer")(answer.pulled == number(paths.pull("late-pull")))
    assert(answer.look === number(paths.look))
    coordinator.stop()
  }

  test("a request whose change its watch missed is answered at the next look") {
    val endpointClient = zkClient("/changes")
    val (coordinator, paths, dirs) = servedWith(Some(endpointClient), "missed-a")
    val (asked, _) = caughtUp(coordinator, "missed-a")
    append(dirs("missed-a"), "two\n")
    var grown = Seq.empty[FileMeta]
    eventually("the grown file's news", 10000) {
      val news = coordinator.answers(coordinator.ask(asked), 100).files
      grown = news.getOrElse("missed-a", grown)
      grown.exists(_.lineEnd == 8L)
    }
    // The endpoint's watch on its request gone from the server, as after a read that failed on
    // a live connection: the request that follows is not heard by its watch.
    endpointClient.getZookeeperClient.getZooKeeper
      .removeAllWatches(paths.request("missed-a"), Watcher.WatcherType.Data, false)
    append(dirs("missed-a"), "three\n")
    val sent = coordinator.ask(Map("missed-a" -> known(grown)))
    assert(sent.hosts === Set("missed-a"))
    val answers = coordinator.answers(sent, 10000, Look.Now)
    assert(answers.heard === Set("missed-a"))
    assert(answers.files("missed-a").head.lineEnd === 14L)
    coordinator.stop()
  }

  /** The driver's first request to `host`, as sealed, then [[caughtUp]]'s request. */
  private def firstThenCaughtUp(
      coordinator: Coordinator,
      paths: ZkPaths,
      host: String): (Array[Byte], Map[String, Seq[KnownFile]]) = {
    val files = Rounds.collect(coordinator, Map(host -> Seq.empty[KnownFile]), 10000)
    val first = client.getData.forPath(paths.request(host))
    val asked = files.map { case (h, f) => h -> known(f) }
    assert(coordinator.answers(coordinator.ask(asked), 10000).files.keySet === Set(host))
    (first, asked)
  }

  /** What the driver hears of `host`'s file once it grows to `end`: its news, or none. */
  private def grownTo(
      coordinator: Coordinator,
      asked: Map[String, Seq[KnownFile]],
      host: String,
      end: Long): Boolean = {
    var heard = false
    eventually(s"the news of $host's file at $end", 10000) {
      val answers = coordinator.answers(coordinator.ask(asked), 100, Look.Now)
      heard = answers.files.get(host).exists(_.exists(_.lineEnd == end))
      heard
    }
    heard
  }

  test("an older request written back over the driver's is refused, said; the host answers on") {
    val (coordinator, paths, dirs) = served("replayed")
    val (first, asked) = firstThenCaughtUp(coordinator, paths, "replayed")
    Logged.during(classOf[NodeEndpoint].getName) { said =>
      // Anyone who can write ZooKeeper, writing the driver's own sealed first request back.
      zkClient("/elsewhere").setData().forPath(paths.request("replayed"), first)
      eventually("the endpoint's word", 10000)(said().exists(_.contains("refuses request")))
      append(dirs("replayed"), "two\n")
      assert(grownTo(coordinator, asked, "replayed", 8L))
    }
    coordinator.stop()
  }

  test("a new endpoint that finds an older request is sent the driver's again at a look") {
    val (coordinator, paths, dirs) = served("restarted")
    val (first, asked) = firstThenCaughtUp(coordinator, paths, "restarted")
    endpoints.head.shutdown()
    zkClient("/elsewhere").setData().forPath(paths.request("restarted"), first)
    val spec = EndpointSpec(
      s"changes-$runs",
      zk.access,
      s"/changes/$runs",
      SourceFiles(dirs("restarted"), "app.*"),
      1024,
      key)
    val again = new NodeEndpoint(spec, "restarted", () => (), None)
    endpoints ::= again
    again.start()
    append(dirs("restarted"), "two\n")
    assert(grownTo(coordinator, asked, "restarted", 8L))
    coordinator.stop()
  }
}
