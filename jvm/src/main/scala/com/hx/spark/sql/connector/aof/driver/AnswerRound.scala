package com.hx.spark.sql.connector.aof.driver

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.{
  HostExchanges,
  Reply,
  Request,
  Response,
  SentRequest
}

/**
 * One call's gathering of the hosts' answers ([[Coordinator.answers]]): the hosts awaited (sent
 * a request, or called to look), and the news taken.
 *
 * @param asked the hosts sent a request: awaited until they answer it
 * @param send  sends requests; those sent, by host
 */
private[driver] final class AnswerRound(
    asked: Set[String],
    exchanges: HostExchanges,
    responses: ResponseWatch,
    send: Map[String, (SentRequest, Request)] => Map[String, SentRequest]) {
  private val log = LoggerFactory.getLogger(getClass)
  private var awaited = asked
  private var look = 0L
  private var lookers = Set.empty[String]
  private var resent = Set.empty[String]
  var replies: Map[String, (SentRequest, Response, Reply)] = Map.empty
  // The hosts that answered in this call (after its look, if any).
  var heard: Set[String] = Set.empty

  def waiting: Boolean = awaited.nonEmpty || lookers.nonEmpty

  /** Every host in `hosts` not awaited already is awaited until it answers look `n`. */
  def calling(n: Long, hosts: Set[String]): Unit = if (n > 0) {
    look = n
    lookers = hosts -- awaited
  }

  /** Reads the responses that changed; the news among them. */
  def take(): Map[String, (SentRequest, Response, Reply)] = {
    val news = responses.wrote().flatMap(h => readFrom(h).map(h -> _)).toMap
    replies ++= news
    news
  }

  private def readFrom(host: String): Option[(SentRequest, Response, Reply)] = {
    val (standing, latest) = (exchanges.standingFor(host), responses.latest(host))
    for (sent <- standing; r <- latest if r.id != sent.id) resendIfStale(host, sent, r)
    for {
      sent <- standing
      response <- latest if response.id == sent.id
      reply <- exchanges.read(sent, response) match {
        case Reply.NeedsFull if !resent(host) =>
          log.info(s"aof: $host asks for the request in full (a new endpoint, or a late answer)")
          resent += host
          awaited ++= send(Map(host -> exchanges.inFull(sent))).keySet
          None
        case Reply.NeedsFull => None
        case r =>
          awaited -= host
          // An answer to a request sent in this call is as new as one to its look.
          if (response.look >= look || asked(host) || resent(host)) {
            lookers -= host
            heard += host
          }
          Some(r).filter(_ => exchanges.isNews(host, response))
      }
    } yield (sent, response, reply)
  }

  /**
   * A host called to look (not sent a request in this call) that still answers a request older
   * than the one standing holds a request written back over the driver's (a new endpoint takes
   * whatever it finds): the request is sent again, once a call, so that it answers the driver's.
   */
  private def resendIfStale(host: String, sent: SentRequest, response: Response): Unit =
    if (lookers(host) && response.look >= look && response.seq < sent.seq && !resent(host)) {
      // Also a request sent a moment ago that its endpoint had not read yet: said, not warned.
      log.info(
        s"aof: $host answered a look with an older request than the driver's (${response.seq}, " +
          s"not ${sent.seq}); the request is sent again.")
      resent += host
      awaited ++= send(Map(host -> exchanges.inFull(sent))).keySet
    }
}
