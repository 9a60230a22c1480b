package com.hx.spark.sql.connector.aof.driver

import scala.collection.mutable

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{
  Answer, Answered, HostExchanges, Request, SentRequest
}

/**
 * One call's gathering of the hosts' answers ([[Coordinator.answers]]): the hosts awaited (sent
 * a request, or called to look), and the news taken. A host whose files changed since its last
 * answer's look is called to look ([[ZkPaths.pull]]), once a call, unless it answered in it.
 *
 * @param asked the hosts sent a request: awaited until they answer it
 * @param send  sends requests; those sent, by host
 * @param pull  calls hosts to look; the call's number (0 if none) and the hosts called
 * @param owing the hosts whose files changed since their last answer's look, kept across calls
 */
private[driver] final class AnswerRound(
    asked: Set[String],
    exchanges: HostExchanges,
    answers: AnswerWatch,
    send: Map[String, (SentRequest, Request)] => Map[String, SentRequest],
    pull: Set[String] => (Long, Set[String]),
    owing: mutable.Set[String]) {
  private val log = LoggerFactory.getLogger(getClass)
  private var awaited = asked
  // The hosts called to look, each with the call its answer must have seen.
  private var lookers = Map.empty[String, Long]
  // Those of them a call to look at everything named: only an answer to the call will do.
  private var wholeLookers = Set.empty[String]
  private var pulled = Set.empty[String]
  private var resent = Set.empty[String]
  var taken: Map[String, (SentRequest, Answer, Answered)] = Map.empty
  // The hosts that answered in this call (after its look, if any).
  var heard: Set[String] = Set.empty

  def waiting: Boolean = awaited.nonEmpty || lookers.nonEmpty

  /**
   * Every host in `hosts` not awaited already is awaited until it answers call `n`; with
   * `whole`, those awaited too. A host answers a request with a look at what it has heard
   * changed, and a change may be heard a few milliseconds after it was made: only the answer to
   * a call to look at everything (`Look.Now`, or the first quiet call after news) is sure to
   * hold every byte written before the call.
   */
  def calling(n: Long, hosts: Set[String], whole: Boolean = false): Unit = if (n > 0) {
    val called = if (whole) hosts else hosts -- awaited
    lookers ++= called.map(_ -> n)
    if (whole) wholeLookers ++= called
  }

  /** Reads the answers that changed, and calls the hosts that changed; the news. */
  def take(): Map[String, (SentRequest, Answer, Answered)] = {
    val news = answers.wrote().flatMap(h => readFrom(h).map(h -> _)).toMap
    taken ++= news
    pullChanged()
    news
  }

  /**
   * Calls to look the hosts whose count of changes is above what their last answer saw, each
   * once a call. Not those awaited: their answer may see the change, and if not they are called
   * after it. Nor those heard in this call: their look began after its request or call to look
   * was written, so it saw every byte written before that it had heard of (one heard of later
   * raises its count of changes again); a file written all the time has changed
   * again by the time its answer is read, and a second look would double a trigger's cost for a
   * few milliseconds of lines. They are called at the next call. Only hosts with a standing
   * request, which a look answers.
   */
  private def pullChanged(): Unit = {
    val now = ChangedHosts.owing(
      owing.toSet,
      answers.raisedCounts().keySet,
      answers.changeCount,
      answers.latest(_).map(_.changes))
    owing.clear()
    owing ++= now
    val due = (owing.toSet -- awaited -- lookers.keySet -- pulled -- heard)
      .filter(exchanges.standingFor(_).nonEmpty)
    if (due.nonEmpty) {
      val (n, called) = pull(due)
      pulled ++= due
      calling(n, called)
    }
  }

  private def readFrom(host: String): Option[(SentRequest, Answer, Answered)] = {
    val (standing, latest) = (exchanges.standingFor(host), answers.latest(host))
    for (sent <- standing; r <- latest if r.id != sent.id) resendIfStale(host, sent, r)
    for {
      sent <- standing
      answer <- latest if answer.id == sent.id
      answered <- exchanges.read(sent, answer) match {
        case Answered.NeedsFull if !resent(host) =>
          log.info(s"aof: $host asks for the request in full (a new endpoint, or a late answer)")
          resent += host
          awaited ++= send(Map(host -> exchanges.inFull(sent))).keySet
          None
        case Answered.NeedsFull => None
        case r =>
          awaited -= host
          // An answer to a request sent in this call is as new as one to a pull, though not
          // as whole as one to a call to look at everything ([[calling]]).
          // The very call awaited: a call's number comes from ZooKeeper, where anybody may have
          // written a greater one, so a greater number does not say the host looked since.
          val looked = lookers.get(host).forall(_ == called(host, answer))
          if (looked || (!wholeLookers(host) && (asked(host) || resent(host)))) {
            lookers -= host
            heard += host
          }
          Some(r).filter(_ => exchanges.isNews(host, answer))
      }
    } yield (sent, answer, answered)
  }

  /** The number of the call of the kind `host` was called by (to look at all, or pulled) seen. */
  private def called(host: String, answer: Answer): Long =
    if (wholeLookers(host)) answer.look else answer.pulled

  /**
   * A host called to look (not sent a request in this call) that still answers a request older
   * than the one standing holds a request written back over the driver's (a new endpoint takes
   * whatever it finds): the request is sent again, once a call, so that it answers the driver's.
   */
  private def resendIfStale(host: String, sent: SentRequest, answer: Answer): Unit =
    if (lookers.get(host).contains(called(host, answer)) && answer.seq < sent.seq &&
      !resent(host)) {
      // Also a request sent a moment ago that its endpoint had not read yet: said, not warned.
      log.info(
        s"aof: $host answered a look with an older request than the driver's (${answer.seq}, " +
          s"not ${sent.seq}); the request is sent again.")
      resent += host
      awaited ++= send(Map(host -> exchanges.inFull(sent))).keySet
    }
}
