package com.hx.spark.sql.connector.aof.endpoint

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.util.concurrent.{CountDownLatch, TimeUnit}

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.ZooDefs
import org.apache.zookeeper.data.ACL
import org.scalatest.LoneElement
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.driver.{Coordinator, OffsetBackup}
import com.hx.spark.sql.connector.aof.endpoint.Rounds.{awaitHosts, collect}
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, Fingerprint, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.{DirectoryWatch, SourceFiles}
import com.hx.spark.sql.connector.aof.files.scan.DirectoryScanner
import com.hx.spark.sql.connector.aof.protocol.{
  Answer, MessageSeal, Messages, Request, ZkPaths, ZnodeValues
}
import com.hx.spark.sql.connector.aof.testkit.{MovingClock, TempDirectories, ZooKeeperFixture}
import com.hx.spark.sql.connector.aof.testkit.Polling.eventually
import com.hx.spark.sql.connector.aof.zookeeper.ZkClients

/** The driver / endpoint exchange against a real ZooKeeper server in its own process. */
class EndpointProtocolSuite
    extends AnyFunSuite
    with ZooKeeperFixture
    with TempDirectories
    with LoneElement {
  private val root = tempDirectory("aof-protocol-")
  private lazy val client: CuratorFramework = zkClient("/protocol")
  private var runs = 0
  private val key = MessageSeal.newKey()

  override protected def afterAll(): Unit = {
    // Also the endpoints of a test that failed before stopping them: left running, they would
    // try to reach the stopped server for the rest of the run and flood its log.
    try for (i <- 1 to runs) NodeEndpoints.stop(s"protocol-run-$i")
    finally super.afterAll()
  }

  /** A coordinator for a fresh run over a directory holding `files`. */
  private def run(files: (String, String)*): (Coordinator, EndpointSpec, Path) = {
    runs += 1
    val dir = Files.createDirectories(root.resolve(s"logs-$runs"))
    files.foreach { case (name, text) => Files.write(dir.resolve(name), text.getBytes(UTF_8)) }
    val metaStore = s"/protocol/$runs"
    val coordinator = new Coordinator(client, metaStore, s"protocol-run-$runs", key)
    coordinator.start()
    (
      coordinator,
      EndpointSpec(
        s"protocol-run-$runs",
        zk.access,
        metaStore,
        SourceFiles(dir, "app.*"),
        1024,
        key),
      dir)
  }

  /** A run whose endpoint on `host` serves. */
  private def served(host: String, files: (String, String)*): (Coordinator, EndpointSpec, Path) = {
    val (coordinator, spec, dir) = run(files: _*)
    NodeEndpoints.ensureRunning(spec, host)
    awaitHosts(coordinator, Set(host), 10000)
    (coordinator, spec, dir)
  }

  /** What `status` does to ask for reports; the zxid of the ask, which later writes exceed. */
  private def askReports(spec: EndpointSpec): Long =
    client.setData().forPath(ZkPaths(spec.metaStore, spec.runId).reports, Array[Byte]()).getMzxid

  private def children(path: String): Seq[String] =
    if (client.checkExists().forPath(path) == null) Nil
    else client.getChildren.forPath(path).asScala.toSeq

  test("an endpoint registers and answers with its directory's files") {
    val (coordinator, spec, dir) = run("app.log" -> "one\ntwo\npart", "other.txt" -> "x\n")
    NodeEndpoints.ensureRunning(spec, "host-a")
    awaitHosts(coordinator, Set("host-a"), 10000)
    val answer = collect(coordinator, Map("host-a" -> Nil), 10000)
    val file = answer("host-a").loneElement
    assert(file.path === dir.resolve("app.log").toString)
    assert((file.size, file.lineEnd, file.fingerprint.length) === ((12L, 8L, 12L)))
    assert(file.key === FileKey.of(dir.resolve("app.log")))
    coordinator.stop()
  }

  // The driver asks before it launches the endpoints, so that they answer as they start.
  test("a request sent before the host's endpoint starts is answered once it serves") {
    val (coordinator, spec, dir) = run("app.log" -> "one\n")
    val asked = coordinator.ask(Map("host-l" -> Nil))
    NodeEndpoints.ensureRunning(spec, "host-l")
    val file = coordinator.answers(asked, 10000).files("host-l").loneElement
    assert(file.path === dir.resolve("app.log").toString)
    coordinator.stop()
  }

  test("retired files travel to the endpoint, which says it looked for them and names a copy") {
    val text = "one\ntwo\n"
    val (coordinator, _, dir) = served("host-r", "app.log.1" -> text)
    // app.log, read whole and gone, then shown copied to app.log.1; another retired file has none.
    val gone = KnownFile(FileKey(1, 1), text.length, Fingerprint(text.length, md5(text)))
    val other = KnownFile(FileKey(1, 2), 3, Fingerprint(3, md5("xyz")))
    val retired = Map("1:1:0" -> gone, "1:2:0" -> other)
    val asked = coordinator.ask(Map("host-r" -> Nil), Map("host-r" -> retired))
    val answers = coordinator.answers(asked, 10000)
    val copy = answers.files("host-r").loneElement
    assert(copy.path === dir.resolve("app.log.1").toString)
    assert(copy.copyOfRetired === Some("1:1:0"))
    assert(answers.looked("host-r").ids === retired.keySet)
    coordinator.stop()
  }

  private def md5(text: String): String =
    java.security.MessageDigest
      .getInstance("MD5")
      .digest(text.getBytes(UTF_8))
      .map(b => f"${b & 0xff}%02x")
      .mkString

  test("of two endpoints on one host one serves; when it goes the other takes over") {
    val (coordinator, spec, _) = run("app.log" -> "a\n")
    val first = new NodeEndpoint(spec, "host-b", () => ())
    val second = new NodeEndpoint(spec, "host-b", () => ())
    first.start()
    second.start()
    awaitHosts(coordinator, Set("host-b"), 10000)
    // Each latch joins in the background: the second may come after the first serves.
    eventually("both endpoints in the latch")(
      children(s"${spec.metaStore}/runs/${spec.runId}/latches/host-b").size == 2)
    assert(collect(coordinator, Map("host-b" -> Nil), 10000).contains("host-b"))
    first.shutdown()
    eventually("one latch member left")(
      children(s"${spec.metaStore}/runs/${spec.runId}/latches/host-b").size == 1)
    awaitHosts(coordinator, Set("host-b"), 10000)
    assert(collect(coordinator, Map("host-b" -> Nil), 10000).contains("host-b"))
    second.shutdown()
    coordinator.stop()
  }

  test("a host without an endpoint is left out after the timeout") {
    val (coordinator, spec, _) = served("host-c", "app.log" -> "a\n")
    val started = System.nanoTime()
    val answer = collect(coordinator, Map("host-c" -> Nil, "silent-host" -> Nil), 500)
    val tookMs = (System.nanoTime() - started) / 1000000
    assert(answer.keySet === Set("host-c"))
    assert(tookMs >= 450 && tookMs < 5000, s"took $tookMs ms")
    coordinator.stop()
  }

  test("a response that does not decode is no answer, not a failure") {
    val (coordinator, spec, _) = run("app.log" -> "a\n")
    ZnodeValues.put(
      client,
      ZkPaths(spec.metaStore, spec.runId).answer("garbled-host"),
      "not gzip".getBytes(UTF_8))
    assert(collect(coordinator, Map("garbled-host" -> Nil), 300).isEmpty)
    coordinator.stop()
  }

  test("an old response is not taken as the answer to a new request") {
    val (coordinator, spec, _) = run("app.log" -> "a\n")
    ZnodeValues.put(
      client,
      ZkPaths(spec.metaStore, spec.runId).answer("stale-host"),
      Messages.encode(Answer("old-id", Nil), key))
    assert(collect(coordinator, Map("stale-host" -> Nil), 300).isEmpty)
    coordinator.stop()
  }

  test("a request naming files elsewhere cannot make the endpoint look outside its directory") {
    val outside = Files.createTempFile(root, "app-secret", ".log")
    Files.write(outside, "secret\n".getBytes(UTF_8))
    val (coordinator, spec, dir) = served("host-d", "app.log" -> "a\n")
    val known = Seq(KnownFile(FileKey.of(outside), 0, Fingerprint.Empty))
    val files = collect(coordinator, Map("host-d" -> known), 10000)("host-d")
    assert(files.map(_.path) === Seq(dir.resolve("app.log").toString))
    coordinator.stop()
  }

  test("stopping the run stops its endpoints, removes its znodes, keeps the offset backup") {
    val (coordinator, spec, _) = run("app.log" -> "a\n")
    eventually("earlier tests' endpoints stopped")(NodeEndpoints.runningCount == 0)
    val threadsBefore = zkThreads() // the suite's own client included
    new OffsetBackup(client, spec.metaStore).write("""{"version":1,"hosts":{}}""")
    NodeEndpoints.ensureRunning(spec, "host-e")
    awaitHosts(coordinator, Set("host-e"), 10000)
    assert(NodeEndpoints.runningCount === 1)
    coordinator.stop()
    eventually("endpoint stopped")(NodeEndpoints.runningCount == 0)
    assert(children(s"${spec.metaStore}/runs").isEmpty)
    assert(new OffsetBackup(client, spec.metaStore).read().contains("""{"version":1,"hosts":{}}"""))
    eventually("ZooKeeper client threads closed")(zkThreads() == threadsBefore)
  }

  test("a run whose driver died is cleaned up by the next driver") {
    val dead = ZkClients.open(zk.access, "/protocol")
    val metaStore = "/protocol/dead-driver"
    new Coordinator(dead, metaStore, "dead-run", key).start()
    dead.close() // its session ends, as when the driver's JVM dies; its driver node goes
    val next = new Coordinator(client, metaStore, "next-run", key)
    next.start()
    assert(children(s"$metaStore/runs") === Seq("next-run"))
    next.stop()
  }

  test("the driver's node comes back when it goes while the driver lives") {
    val (coordinator, spec, _) = run("app.log" -> "a\n")
    val driver = ZkPaths(spec.metaStore, spec.runId).driver
    client.delete().forPath(driver) // as after a session expiry, seen from the new session
    eventually("driver node re-created")(client.checkExists().forPath(driver) != null)
    coordinator.stop()
  }

  test("an endpoint started while the driver node is away ends; a later start serves") {
    // As after a session expiry: the driver's node is back only once the driver reconnects.
    runs += 1
    val metaStore = s"/protocol/$runs"
    val spec =
      EndpointSpec(
        s"protocol-run-$runs",
        zk.access,
        metaStore,
        SourceFiles(root, "app.*"),
        1024,
        key)
    eventually("earlier tests' endpoints stopped")(NodeEndpoints.runningCount == 0)
    NodeEndpoints.ensureRunning(spec, "host-f")
    eventually("the endpoint without a driver ended")(NodeEndpoints.runningCount == 0)
    val coordinator = new Coordinator(client, metaStore, spec.runId, key)
    coordinator.start()
    NodeEndpoints.ensureRunning(spec, "host-f")
    awaitHosts(coordinator, Set("host-f"), 10000)
    coordinator.stop()
  }

  test("a message sealed with another key, or changed on the way, is rejected") {
    val request = Messages.encode(Request("r", Nil), key)
    val forged = intercept[IllegalArgumentException] {
      Messages.decodeRequest(request, MessageSeal.newKey())
    }
    assert(forged.getMessage.contains("not sealed by this query run"))
    val changed = request.clone()
    changed(changed.length - 1) = (changed.last ^ 1).toByte
    intercept[IllegalArgumentException](Messages.decodeRequest(changed, key))
    intercept[IllegalArgumentException](Messages.decodeRequest(request.drop(1), key))
  }

  test("messages survive a round trip, 10,000 files fit in a znode") {
    val files = (1 to 10000).map { n =>
      com.hx.spark.sql.connector.aof.files.identity.FileMeta(
        s"/var/log/app/service-$n.log",
        FileKey(2049, n),
        n * 1000L,
        n * 999L,
        Fingerprint(1024, f"$n%032x"),
        if (n % 2 == 0) Some(Fingerprint(10, "p")) else None,
        floor = if (n % 3 == 0) Some(n * 10L) else None,
        unreadable = if (n % 5 == 0) Some("Permission denied") else None
      )
    }
    val bytes = Messages.encode(Answer("id", files), key)
    assert(Messages.decodeAnswer(bytes, key) === Answer("id", files))
    Seq(Answer("u", Nil, unlisted = Some("/x cannot be listed")), Answer("a", Nil, absent = true))
      .foreach(r => assert(Messages.decodeAnswer(Messages.encode(r, key), key) === r))
    assert(bytes.length < 1000000, s"${bytes.length} bytes")
    val known = Seq(KnownFile(FileKey(1, 2), 3, Fingerprint(4, "five")))
    val request = Messages.encode(Request("r", known), key)
    assert(Messages.decodeRequest(request, key) === Request("r", known))
  }

  /** What the driver tracks after planning up to every complete line of `files`. */
  private def tracked(files: Seq[FileMeta]): Seq[KnownFile] =
    files.map(f => KnownFile(f.key, f.lineEnd, f.fingerprint, f.tailAtLineEnd))

  /** The answer in full, as a node that never answered before would give it. */
  private def inFull(dir: Path, known: Seq[KnownFile]): Set[FileMeta] =
    new DirectoryScanner(SourceFiles(dir, "app.*"), 1024).scan(known).toSet

  private def lastRequest(spec: EndpointSpec, host: String): Request = Messages.decodeRequest(
    client.getData.forPath(ZkPaths(spec.metaStore, spec.runId).request(host)),
    key)

  private def lastAnswer(spec: EndpointSpec, host: String): Answer = Messages.decodeAnswer(
    client.getData.forPath(ZkPaths(spec.metaStore, spec.runId).answer(host)),
    key)

  private def append(file: Path, text: String): Unit =
    Files.write(file, text.getBytes(UTF_8), StandardOpenOption.APPEND)

  test("once a host answered, requests and answers carry only what changed") {
    val names = (1 to 50).map(n => f"app-$n%02d.log")
    val (coordinator, spec, dir) = served("host-g", names.map(_ -> "one\n"): _*)
    val first = collect(coordinator, Map("host-g" -> Nil), 10000)("host-g")
    val second = collect(coordinator, Map("host-g" -> tracked(first)), 10000)("host-g")
    assert(second.size === 50)
    def keyOf(name: String): FileKey = FileKey.of(dir.resolve(name))
    append(dir.resolve("app-07.log"), "two\n")
    Files.write(dir.resolve("app-51.log"), "new\n".getBytes(UTF_8)) // first: inodes are reused
    val gone = keyOf("app-09.log")
    Files.delete(dir.resolve("app-09.log"))
    val known = tracked(second).filterNot(_.key == keyOf("app-03.log")) // no longer tracked
    val third = collect(coordinator, Map("host-g" -> known), 10000)("host-g")
    assert(third.toSet === inFull(dir, known))
    assert(third.size === 50)
    val request = lastRequest(spec, "host-g")
    assert(request.base.nonEmpty)
    assert(request.known === Nil)
    assert(request.forgotten === Seq(keyOf("app-03.log")))
    val answer = lastAnswer(spec, "host-g")
    assert(answer.base === request.base)
    // app-03.log is described as untracked now: its answer changed too.
    val changed = Seq("app-03.log", "app-07.log", "app-51.log").map(keyOf)
    assert(answer.files.map(_.key).toSet === changed.toSet)
    assert(answer.gone === Seq(gone))
    // The whole picture, for `status`, is published apart from the answers, once asked.
    askReports(spec)
    val report = ZkPaths(spec.metaStore, spec.runId).report("host-g")
    eventually("the report holds every file") {
      client.checkExists().forPath(report) != null &&
      Messages.decodeAnswer(client.getData.forPath(report), key).files.toSet == third.toSet
    }
    coordinator.stop()
  }

  test("a call to look at everything answers with every change made before it, heard or not") {
    val names = (1 to 5).map(n => s"app-$n.log")
    val (coordinator, _, dir) = served("host-w", names.map(_ -> "one\n"): _*)
    val first = collect(coordinator, Map("host-w" -> Nil), 10000)("host-w")
    val second = collect(coordinator, Map("host-w" -> tracked(first)), 10000)("host-w")
    // The JVM's one watch thread, held in a listener of another directory: the endpoint hears
    // nothing of the changes below until it is let go, as when the thread is slow.
    val (held, letGo) = (new CountDownLatch(1), new CountDownLatch(1))
    val other = Files.createDirectory(root.resolve("held"))
    val holding = DirectoryWatch.register(Seq(other), (_, _) => { held.countDown(); letGo.await() })
    try {
      Files.write(other.resolve("x"), "x".getBytes(UTF_8))
      assert(held.await(10, TimeUnit.SECONDS))
      append(dir.resolve("app-2.log"), "two\n")
      Files.write(dir.resolve("app-6.log"), "new\n".getBytes(UTF_8))
      // A new request (app-1.log no longer tracked), answered by a look at what was heard.
      val known = tracked(second).filterNot(_.key == FileKey.of(dir.resolve("app-1.log")))
      val third = collect(coordinator, Map("host-w" -> known), 10000)("host-w")
      assert(third.toSet === inFull(dir, known))
    } finally {
      letGo.countDown()
      holding.close()
    }
    coordinator.stop()
  }

  test("no report until status asks; then at once, and each change while asked") {
    val (coordinator, spec, dir) = served("host-j", "app-1.log" -> "a\n", "app-2.log" -> "b\n")
    val first = collect(coordinator, Map("host-j" -> Nil), 10000)("host-j")
    val known = tracked(first)
    val second = collect(coordinator, Map("host-j" -> known), 10000)("host-j")
    val report = ZkPaths(spec.metaStore, spec.runId).report("host-j")
    def written(): Option[(Long, Set[FileMeta])] = Option(client.checkExists().forPath(report))
      .map(stat =>
        stat.getMzxid -> Messages.decodeAnswer(client.getData.forPath(report), key).files.toSet)
    def writes = NodeEndpoints.reportOf(spec.runId).get.writesScheduledSoFar
    assert((writes, written()) === ((0L, None)))
    // Asked while idle: the last answer is written, though nothing changed since.
    val ask = askReports(spec)
    eventually("the report holds the second answer")(written().exists { case (zxid, files) =>
      zxid > ask && files == second.toSet
    })
    val writesAsked = writes
    (1 to 3).foreach(_ => collect(coordinator, Map("host-j" -> known), 10000))
    assert(writes === writesAsked, "an idle host's list is not written again")
    append(dir.resolve("app-1.log"), "c\n")
    val third = collect(coordinator, Map("host-j" -> known), 10000)("host-j")
    eventually("the report holds the change")(written().exists(_._2 == third.toSet))
    coordinator.stop()
  }

  test("a report asked for is written for as long as asked, then no more") {
    val (coordinator, spec, _) = run()
    val paths = ZkPaths(spec.metaStore, spec.runId)
    val clock = new MovingClock
    val report =
      new EndpointReport(
        client,
        paths.report("host-l"),
        paths.reports,
        key,
        "host-l",
        clock = clock)
    report.start()
    def answer(n: Int) = Answer(s"request-$n", Nil)
    def written(): Option[String] = Option(client.checkExists().forPath(paths.report("host-l")))
      .map(_ => Messages.decodeAnswer(client.getData.forPath(paths.report("host-l")), key).id)
    report.publish(answer(1))
    askReports(spec)
    eventually("the answer before the ask is written")(written().contains("request-1"))
    report.publish(answer(2))
    eventually("a change while asked is written")(written().contains("request-2"))
    val writes = report.writesScheduledSoFar
    clock.advance(60001) // past the minute asked for
    report.publish(answer(3))
    assert(report.writesScheduledSoFar === writes)
    assert(written().contains("request-2"))
    report.close()
    coordinator.stop()
  }

  test("a report forgotten, as an endpoint that stands by forgets it, is not written when asked") {
    val (coordinator, spec, _) = run()
    val paths = ZkPaths(spec.metaStore, spec.runId)
    val report = new EndpointReport(client, paths.report("host-m"), paths.reports, key, "host-m")
    report.start()
    def written(): Option[String] = Option(client.checkExists().forPath(paths.report("host-m")))
      .map(_ => Messages.decodeAnswer(client.getData.forPath(paths.report("host-m")), key).id)
    report.publish(Answer("request-1", Nil))
    report.forget() // another endpoint serves the host now, and writes its own list
    askReports(spec)
    eventually("the ask seen")(report.isWanted)
    assert((report.writesScheduledSoFar, written()) === ((0L, None)))
    report.publish(Answer("request-2", Nil)) // serving again
    eventually("the answer since it serves is written")(written().contains("request-2"))
    report.close()
    coordinator.stop()
  }

  test("a report ZooKeeper refused is written once it accepts, though the files did not change") {
    val (coordinator, spec, _) = served("host-k", "app-1.log" -> "a\n")
    val report = ZkPaths(spec.metaStore, spec.runId).report("host-k")
    // A real refusal: the report's node may be read but not written, until its ACL opens.
    val readOnly = new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN, ZooDefs.Ids.ANYONE_ID_UNSAFE)
    client.create().creatingParentsIfNeeded().withACL(List(readOnly).asJava).forPath(report)
    askReports(spec)
    // The report is written as the answer is: on the endpoint's session, so (almost always)
    // refused before the answer arrives. Were it not, this test would pass without the retry.
    val first = collect(coordinator, Map("host-k" -> Nil), 10000)("host-k")
    client.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(report)
    assert(collect(coordinator, Map("host-k" -> Nil), 10000)("host-k") === first)
    eventually("the report holds the host's file") {
      val data = client.getData.forPath(report)
      data.nonEmpty && Messages.decodeAnswer(data, key).files.toSet == first.toSet
    }
    coordinator.stop()
  }

  test("a new endpoint on the host asks for the request in full, within the same trigger") {
    val (coordinator, spec, dir) = run("app-1.log" -> "a\n", "app-2.log" -> "b\n")
    val before = new NodeEndpoint(spec, "host-h", () => ())
    before.start()
    awaitHosts(coordinator, Set("host-h"), 10000)
    val first = collect(coordinator, Map("host-h" -> Nil), 10000)("host-h")
    val second = collect(coordinator, Map("host-h" -> tracked(first)), 10000)("host-h")
    assert(lastRequest(spec, "host-h").base.nonEmpty)
    before.shutdown()
    val after = new NodeEndpoint(spec, "host-h", () => ())
    after.start()
    awaitHosts(coordinator, Set("host-h"), 20000) // the new endpoint serves
    append(dir.resolve("app-1.log"), "more\n")
    val known = tracked(second)
    val third = collect(coordinator, Map("host-h" -> known), 10000)
    assert(third.get("host-h").map(_.toSet) === Some(inFull(dir, known)))
    assert(lastRequest(spec, "host-h").base === None)
    after.shutdown()
    coordinator.stop()
  }

  test("after an answer that came too late, the next request is answered in full") {
    val (coordinator, spec, dir) = served("host-i", "app-1.log" -> "a\n", "app-2.log" -> "b\n")
    val first = collect(coordinator, Map("host-i" -> Nil), 10000)("host-i")
    val known = tracked(first)
    // Sent, its answer never taken (a trigger that ended first), to a request without app-1.log.
    // Not a trigger of no wait: the node can answer within it, and the answer is taken.
    coordinator.ask(Map("host-i" -> known.tail))
    val late = lastRequest(spec, "host-i").id
    eventually("the late answer written")(lastAnswer(spec, "host-i").id == late)
    // A change from the first request, not from the late one the node answered last.
    val third = collect(coordinator, Map("host-i" -> known), 10000)("host-i")
    assert(third.toSet === inFull(dir, known))
    coordinator.stop()
  }

  private def zkThreads(): Int =
    Thread.getAllStackTraces.keySet.asScala.count(t => t.getName.contains("SendThread"))
}
