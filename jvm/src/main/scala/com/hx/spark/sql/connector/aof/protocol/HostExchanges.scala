package com.hx.spark.sql.connector.aof.protocol

import java.util.UUID

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}

/**
 * The driver's side of the exchange with the hosts' endpoints: what a host is asked (its files in
 * full, or the change from the last exchange it completed) and what its answers say. A request
 * stands until what the driver tracks changes (the offsets it names moved): the host answers it
 * again when called to look after its files changed, and the driver takes each answer it has not
 * taken yet as the host's news. It keeps each host's standing request and the last answer it
 * took, the base of the next request; the driver's `Coordinator` carries the messages.
 */
final class HostExchanges {
  private val completed = mutable.Map.empty[String, Exchange]
  // Per host, the request sent last, and the request the answer in `completed` answered.
  private val standing = mutable.Map.empty[String, SentRequest]
  private val answered = mutable.Map.empty[String, String]
  // Hosts whose last answer taken could not list their directory: their files are unknown.
  private val unlisted = mutable.Set.empty[String]
  // Per host, the last request's files known to repeat no key: the next change from them need
  // not check its files' keys again ([[Delta.between]]).
  private val uniqueKnown = mutable.Map.empty[String, Seq[KnownFile]]
  // The files of the answers read since the last were taken, by key, by answer: the base of the
  // host's next request once one is taken.
  private val keyedRead = mutable.Map.empty[String, KeyedItems[FileKey, FileMeta]]
  // Orders the requests: a node refuses an older one written back over the newer.
  private var sequence = 0L

  /**
   * The request for `host`, as the change from its last complete exchange if it has one; None
   * when its standing request already asks this.
   */
  def request(
      host: String,
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Seq[FileKey] = Nil): Option[(SentRequest, Request)] = synchronized {
    val asked = standing.get(host)
    val same = (s: SentRequest) =>
      Delta.sameItems(s.known, known) && s.retired == retired && s.remove == remove
    if (asked.exists(same)) None
    else {
      val base = completed.get(host)
      val unique = base.exists(b => uniqueKnown.get(host).exists(_ eq b.known))
      val composed = compose(known, retired, remove, base, unique)
      // A change was made to them: they repeat no file, and the next change is told so.
      if (composed._1.base.nonEmpty) uniqueKnown(host) = known
      Some(composed)
    }
  }

  /** The request of `sent` again in full, for a host that cannot take it as a change. */
  def inFull(sent: SentRequest): (SentRequest, Request) =
    compose(sent.known, sent.retired, sent.remove, None, unique = false)

  /** `sent` reached `host`: it stands until the next. */
  def sent(host: String, sent: SentRequest): Unit = synchronized(standing(host) = sent)

  /** The request standing for `host`, if any. */
  def standingFor(host: String): Option[SentRequest] = synchronized(standing.get(host))

  /** Whether `answer` answers `host`'s standing request with an answer not taken yet. */
  def isNews(host: String, answer: Answer): Boolean = synchronized {
    standing.get(host).exists(_.id == answer.id) &&
    !completed.get(host).exists(_.id == answer.answerId)
  }

  /** The hosts whose standing request has an answer taken: what the driver knows is current. */
  def current: Set[String] = synchronized {
    answered.collect { case (host, id) if standing.get(host).exists(_.id == id) => host }.toSet
  }

  /** The files of each host's last answer taken; not a host that could not list them. */
  def latest: Map[String, Seq[FileMeta]] = synchronized {
    completed.collect { case (host, e) if !unlisted(host) => host -> e.files }.toMap
  }

  /** @param unique that `base` repeats no file ([[Delta.between]]) */
  private def compose(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Seq[FileKey],
      base: Option[Exchange],
      unique: Boolean): (SentRequest, Request) = synchronized {
    val id = UUID.randomUUID().toString
    sequence += 1
    val change = base.flatMap(b => Delta.between(b.known, known, unique)(_.key).map(b -> _))
    val request = change.fold(Request(id, known, retired = retired, remove = remove)) {
      case (b, d) => Request(id, d.changed, Some(b.id), d.removed, retired, remove)
    }
    SentRequest(id, known, retired, change.map(_._1), remove, sequence) ->
      request.copy(seq = sequence)
  }

  /** What `answer` to `sent` says. */
  def read(sent: SentRequest, answer: Answer): Answered =
    (answer.unlisted, answer.base, sent.base) match {
      case (Some(why), _, _) => Answered.Unlisted(why)
      case _ if answer.needsFull => Answered.NeedsFull
      case (None, None, _) => Answered.Listed(answer.files)
      case (None, Some(b), Some(e)) if b == e.id =>
        val keyed = e.keyed.applied(Delta(answer.files, answer.gone))
        synchronized(keyedRead(answer.answerId) = keyed)
        Answered.Listed(keyed.items)
      case _ => Answered.NeedsFull
    }

  /** Keeps the answers taken, all at once: the bases of the hosts' next requests. */
  def complete(replies: Map[String, (SentRequest, Answer, Answered)]): Unit = synchronized {
    replies.foreach {
      case (host, (sent, answer, Answered.Listed(files))) =>
        val keyed = keyedRead.get(answer.answerId).filter(_.items eq files)
        completed(host) = Exchange(
          answer.answerId,
          KeyedItems(sent.known)(_.key),
          keyed.getOrElse(KeyedItems(files)(_.key)))
        answered(host) = sent.id
        unlisted -= host
      case (host, (sent, answer, Answered.Unlisted(_))) =>
        completed(host) = Exchange(answer.answerId, sent.known, Nil)
        answered(host) = sent.id
        unlisted += host
      case _ => ()
    }
    keyedRead.clear()
  }
}
