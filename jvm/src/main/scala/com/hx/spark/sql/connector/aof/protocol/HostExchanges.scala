package com.hx.spark.sql.connector.aof.protocol

import java.util.UUID

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.{FileKey, FileMeta, KnownFile}

/**
 * The driver's side of the exchange with the hosts' endpoints: what a host is asked (its files in
 * full, or the change from the last exchange it completed) and what its answer says. It keeps
 * each host's last complete exchange, the base of the next request; the driver's `Coordinator`
 * carries the messages.
 */
final class HostExchanges {
  private val completed = mutable.Map.empty[String, Exchange]

  /** The request for `host`: as the change from its last complete exchange, if it has one. */
  def request(
      host: String,
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Seq[FileKey] = Nil): (SentRequest, Request) =
    compose(known, retired, remove, synchronized(completed.get(host)))

  /** The request of `sent` again in full, for a host that cannot take it as a change. */
  def inFull(sent: SentRequest): (SentRequest, Request) =
    compose(sent.known, sent.retired, sent.remove, None)

  private def compose(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Seq[FileKey],
      base: Option[Exchange]): (SentRequest, Request) = {
    val id = UUID.randomUUID().toString
    val change = base.flatMap(b => Delta.between(b.known, known)(_.key).map(b -> _))
    val request = change.fold(Request(id, known, retired = retired, remove = remove)) {
      case (b, d) => Request(id, d.changed, Some(b.id), d.removed, retired, remove)
    }
    SentRequest(id, known, retired, change.map(_._1), remove) -> request
  }

  /** What `response` to `sent` says. */
  def read(sent: SentRequest, response: Response): Reply =
    (response.unlisted, response.base, sent.base) match {
      case (Some(why), _, _) => Reply.Unlisted(why)
      case _ if response.needsFull => Reply.NeedsFull
      case (None, None, _) => Reply.Listed(response.files)
      case (None, Some(b), Some(e)) if b == e.id =>
        Reply.Listed(Delta.applied(e.files, Delta(response.files, response.gone))(_.key))
      case _ => Reply.NeedsFull
    }

  /** Keeps the exchanges the hosts completed, all at once: the bases of their next requests. */
  def complete(replies: Map[String, (SentRequest, Reply)]): Unit = synchronized {
    replies.foreach {
      case (host, (sent, Reply.Listed(files))) =>
        completed(host) = Exchange(sent.id, sent.known, files)
      case (host, (sent, Reply.Unlisted(_))) =>
        completed(host) = Exchange(sent.id, sent.known, Nil)
      case _ => ()
    }
  }
}

/**
 * A request on its way: its id, the files it names in full, its retired files, the exchange it
 * is a change from, and the files it lets the node remove.
 */
final case class SentRequest(
    id: String,
    known: Seq[KnownFile],
    retired: Map[String, KnownFile],
    base: Option[Exchange],
    remove: Seq[FileKey] = Nil)

/** What a host's response says. */
sealed trait Reply

object Reply {

  /** The host's files, in full. */
  final case class Listed(files: Seq[FileMeta]) extends Reply

  /** Why the host could not list its directory: its files are unknown this time, not gone. */
  final case class Unlisted(why: String) extends Reply

  /** The host cannot take the request as a change (a new endpoint, or a late answer). */
  case object NeedsFull extends Reply
}
