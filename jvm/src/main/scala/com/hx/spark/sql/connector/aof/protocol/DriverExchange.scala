package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.{FileMeta, KnownFile}

/**
 * An endpoint's side of the exchange with the driver: the files a request names (in full, or as
 * the change from the last exchange), and the answer, in full or as the change from the answer
 * to the request's base. It keeps the last exchange; the endpoint carries the messages.
 */
final class DriverExchange {
  private var last: Option[Exchange] = None

  /**
   * The files `request` names, and the exchange it is a change from, if any; none when that
   * exchange is not the last one (the driver then sends the request in full).
   */
  def known(request: Request): Option[(Seq[KnownFile], Option[Exchange])] = {
    val base = request.base.map(b => last.filter(_.id == b))
    if (base.contains(None)) None
    else {
      val before = base.flatten
      val known = before.fold(request.known) { e =>
        Delta.applied(e.known, Delta(request.known, request.forgotten))(_.key)
      }
      Some(known -> before)
    }
  }

  /**
   * The answer to `request`, whose files are `files` now, as the change from `before` when there
   * is one; kept as the last exchange. With whether the files are those of `before`.
   *
   * @param full the answer in full
   */
  def answer(
      request: Request,
      known: Seq[KnownFile],
      before: Option[Exchange],
      files: Seq[FileMeta],
      full: Response): (Response, Boolean) = {
    last = Some(Exchange(request.id, known, files))
    val change = before.flatMap(e => Delta.between(e.files, files)(_.key).map(e.id -> _))
    val response = change.fold(full) { case (b, d) =>
      full.copy(files = d.changed, base = Some(b), gone = d.removed)
    }
    response -> change.exists(_._2.isEmpty)
  }
}
