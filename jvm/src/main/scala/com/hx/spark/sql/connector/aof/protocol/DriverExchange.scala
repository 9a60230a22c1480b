package com.hx.spark.sql.connector.aof.protocol

import java.util.UUID

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.files.identity.{FileMeta, KnownFile}

/**
 * An endpoint's side of the exchange with the driver: the files a request names (in full, or as
 * the change from an exchange), and the answers to it. A request is answered when it comes, and
 * again at each look the driver calls for, until the next one: each answer is the change from the
 * request's base, whichever of the earlier answers the driver saw, so a driver that missed one
 * loses nothing. The latest answers are kept: the driver bases its next request on the answer
 * it planned from, not always the latest.
 */
final class DriverExchange {
  private val kept = mutable.LinkedHashMap.empty[String, Exchange]
  // The request answered last, the exchange it is a change from, and its latest answer in full.
  private var current: Option[(Request, Seq[KnownFile], Option[Exchange], Answer)] = None
  // The order of the newest request taken: an older one was written back by someone else.
  private var newest = 0L
  // The last answer in full a change was made to: it repeats no file ([[Delta.between]]).
  private var unique: Seq[FileMeta] = Nil
  // The files the last request taken names, by key: an answer's exchange keeps them so.
  private var lastKnown = KeyedItems(Seq.empty[KnownFile])(_.key)

  /** Whether `request` is no older than every request taken before: then it is taken. */
  def takes(request: Request): Boolean =
    request.seq >= newest && {
      newest = request.seq
      true
    }

  /** The order of the newest request taken, which its answers carry. */
  def seq: Long = newest

  /**
   * The files `request` names, and the exchange it is a change from, if any; none when that
   * exchange is not one kept (the driver then sends the request in full).
   */
  def known(request: Request): Option[(Seq[KnownFile], Option[Exchange])] = {
    val base = request.base.map(kept.get)
    if (base.contains(None)) {
      // The earlier request stands no more: answered again, it would replace the ask for this
      // one in full before the driver read it.
      current = None
      None
    } else {
      val before = base.flatten
      val known = before.fold(KeyedItems(request.known)(_.key)) { e =>
        e.keyedKnown.applied(Delta(request.known, request.forgotten))
      }
      lastKnown = known
      Some(known.items -> before)
    }
  }

  /**
   * The answer to `request`, whose files are `full`'s, as the change from `before` when there is
   * one; None when it says what the last answer to the same request said.
   *
   * @param full the answer in full; with `unlisted`, it holds no files
   */
  def answer(
      request: Request,
      known: Seq[KnownFile],
      before: Option[Exchange],
      full: Answer): Option[Answer] = {
    val repeated = current.exists { case (r, _, _, last) =>
      r.id == request.id && full.removed.isEmpty && last.copy(removed = Nil) == full
    }
    if (repeated) None
    else {
      val id = UUID.randomUUID().toString
      current = Some((request, known, before, full))
      val keyedKnown = Some(lastKnown).filter(_.items eq known).getOrElse(KeyedItems(known)(_.key))
      val exchange = Exchange(id, keyedKnown, KeyedItems(full.files)(_.key))
      kept(id) = exchange
      if (kept.size > DriverExchange.Kept) kept -= kept.head._1
      val change = before.flatMap { e =>
        Delta.between(e.files, exchange.files, unique = e.files eq unique)(_.key).map(e.id -> _)
      }
      if (change.nonEmpty) unique = exchange.files
      val answer = change.fold(full) { case (b, d) =>
        full.copy(files = d.changed, base = Some(b), gone = d.removed)
      }
      Some(
        if (full.unlisted.nonEmpty) full.copy(files = Nil, name = id)
        else answer.copy(name = id))
    }
  }

  /** The request answered last, the files it names and its base: looked at again as they change. */
  def standing: Option[(Request, Seq[KnownFile], Option[Exchange])] =
    current.map { case (r, known, before, _) => (r, known, before) }
}

object DriverExchange {

  /**
   * Answers kept as bases: a driver plans from one of its host's last answers, and a file
   * written all the time has its host answer at every trigger, and again once it went quiet: 64
   * are more than the answers of any batch's span.
   */
  val Kept: Int = 64
}
