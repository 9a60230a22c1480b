package com.hx.spark.sql.connector.aof.protocol

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, Fingerprint, KnownFile}

/**
 * Both sides of a standing request, without ZooKeeper: the driver's [[HostExchanges]] and a
 * node's [[DriverExchange]], messages passed by hand, so that lost and reordered answers can be
 * made at will.
 */
class StandingRequestSuite extends AnyFunSuite {
  private val host = "node-1"

  private def file(ino: Long, size: Long): FileMeta =
    FileMeta(s"/logs/app-$ino.log", FileKey(1, ino), size, size, Fingerprint(4, s"fp$ino"), None)

  private def known(files: Seq[FileMeta]): Seq[KnownFile] =
    files.map(f => KnownFile(f.key, f.lineEnd, f.fingerprint, None))

  /** The node's answer to `request` when its files are `files`; None when nothing is new. */
  private def answer(
      node: DriverExchange,
      request: Request,
      files: Seq[FileMeta]): Option[Answer] = {
    val (names, before) = node.known(request).get
    node.answer(request, names, before, Answer(request.id, files))
  }

  private def take(driver: HostExchanges, sent: SentRequest, got: Answer): Seq[FileMeta] = {
    assert(driver.isNews(host, got))
    val said = driver.read(sent, got)
    driver.complete(Map(host -> ((sent, got, said))))
    said match {
      case Answered.Listed(files) => files
      case other => fail(s"not listed: $other")
    }
  }

  /** A host's first request, sent in full and answered with `files`: the answer taken. */
  private def started(files: Seq[FileMeta]): Started = {
    val driver = new HostExchanges
    val node = new DriverExchange
    val (sent, request) = driver.request(host, Nil, Map.empty).get
    driver.sent(host, sent)
    val first = answer(node, request, files).get
    assert(take(driver, sent, first) === files)
    Started(driver, node, sent, request, first)
  }

  private case class Started(
      driver: HostExchanges,
      node: DriverExchange,
      sent: SentRequest,
      request: Request,
      first: Answer)

  test("a node answers a standing request again only when its files changed") {
    val node = new DriverExchange
    val (_, request) = new HostExchanges().request(host, Nil, Map.empty).get
    val first = Seq(file(1, 10), file(2, 20))
    assert(answer(node, request, first).nonEmpty)
    assert(answer(node, request, first).isEmpty)
    val grown = Seq(file(1, 10), file(2, 25))
    val again = answer(node, request, grown).get
    assert(again.id === request.id)
    assert(again.answerId !== request.id)
    assert(node.standing.map(_._1.id) === Some(request.id))
  }

  test("the driver sends a host nothing while its question is the same") {
    val driver = new HostExchanges
    val (sent, _) = driver.request(host, Nil, Map.empty).get
    driver.sent(host, sent)
    assert(driver.request(host, Nil, Map.empty).isEmpty)
    val moved = known(Seq(file(1, 10)))
    assert(driver.request(host, moved, Map.empty).nonEmpty)
    assert(driver.request(host, Nil, Map.empty, Seq(FileKey(1, 1))).nonEmpty)
  }

  test("each answer is a change from the request's base: a driver that missed some loses nothing") {
    val v1 = Seq(file(1, 10), file(2, 20))
    val Started(driver, node, _, _, _) = started(v1)
    // The next request is a change from the answer taken; the node answers it three times.
    val (sent2, request2) = driver.request(host, known(v1), Map.empty).get
    driver.sent(host, sent2)
    assert(request2.base.nonEmpty)
    val v2 = Seq(file(1, 15), file(2, 20))
    val v3 = Seq(file(1, 15), file(2, 30), file(3, 5))
    val v4 = Seq(file(2, 30), file(3, 9))
    val answers = Seq(v2, v3, v4).map(v => answer(node, request2, v).get)
    assert(answers.forall(_.base.nonEmpty))
    // Only the last reaches the driver: it is whole all the same.
    assert(take(driver, sent2, answers.last).toSet === v4.toSet)
    assert(!driver.isNews(host, answers.last))
    // An older answer read late is whole too: each stands on the request's base alone.
    assert(driver.read(sent2, answers.head) === Answered.Listed(v2))
  }

  test("the next request may be based on any of the node's last answers, not only the latest") {
    val taken = Seq(file(1, 10))
    val Started(driver, node, _, request1, _) = started(taken)
    // The node answered again before the driver's next request, based on the answer taken.
    answer(node, request1, Seq(file(1, 12))).get
    val (sent2, request2) = driver.request(host, known(taken), Map.empty).get
    driver.sent(host, sent2)
    val said = answer(node, request2, Seq(file(1, 12))).get
    assert(!said.needsFull)
    assert(take(driver, sent2, said) === Seq(file(1, 12)))
  }

  test("a base the node no longer keeps makes it ask for the request in full") {
    val Started(driver, node, _, request1, _) = started(Seq(file(1, 1)))
    (2 to DriverExchange.Kept + 1).foreach(n => answer(node, request1, Seq(file(1, n))).get)
    val (_, request2) = driver.request(host, known(Seq(file(1, 1))), Map.empty).get
    assert(node.known(request2).isEmpty)
    // The earlier request is not answered again: its answer would replace the ask in full.
    assert(node.standing.isEmpty)
  }

  test("a host that could not list its directory has no files to plan from, not none at all") {
    val Started(driver, node, sent1, request1, _) = started(Seq(file(1, 1)))
    assert(driver.latest === Map(host -> Seq(file(1, 1))))
    val (names, before) = node.known(request1).get
    val full = Answer(request1.id, Nil, unlisted = Some("/logs cannot be listed"))
    val cannot = node.answer(request1, names, before, full).get
    val said = driver.read(sent1, cannot)
    assert(said === Answered.Unlisted("/logs cannot be listed"))
    driver.complete(Map(host -> ((sent1, cannot, said))))
    assert(driver.current === Set(host))
    assert(driver.latest.isEmpty)
  }

  test("an answer to an earlier request is not news, nor is one already taken") {
    val Started(driver, node, _, request1, first) = started(Seq(file(1, 1)))
    assert(!driver.isNews(host, first))
    val (sent2, _) = driver.request(host, known(Seq(file(1, 1))), Map.empty).get
    driver.sent(host, sent2)
    val late = answer(node, request1, Seq(file(1, 2))).get
    assert(!driver.isNews(host, late))
    assert(driver.current.isEmpty) // the standing request has no answer yet
  }
}
