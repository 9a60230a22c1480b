package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.files.identity.FileMeta
import com.hx.spark.sql.connector.aof.plan.CopiesLookedFor
import com.hx.spark.sql.connector.aof.protocol.{Reply, Response, SentRequest}

/**
 * What the hosts answered: the files of those that listed their directory (`absent` those
 * without one), why the others could not (their files are unknown this time, not gone), and the
 * retired files each looked for copies of, and how many files each left unread for
 * `ignore.older`, and how many files they removed for `cleanup`, and how many each could not;
 * the files closest to `path` on the hosts with none ([[Response]]'s `closest`); and every host
 * that answered in the call, its news or not.
 */
final case class Answers(
    files: Map[String, Seq[FileMeta]],
    unlisted: Map[String, String] = Map.empty,
    absent: Set[String] = Set.empty,
    looked: Map[String, CopiesLookedFor] = Map.empty,
    ignored: Map[String, Int] = Map.empty,
    removed: Long = 0L,
    notRemoved: Map[String, Int] = Map.empty,
    closest: Map[String, Seq[String]] = Map.empty,
    heard: Set[String] = Set.empty)

object Answers {

  /** The hosts' replies, each with the request it answers and the response it came in. */
  def of(replies: Map[String, (SentRequest, Response, Reply)]): Answers = {
    val listed = replies.collect { case (host, (sent, response, Reply.Listed(files))) =>
      host -> ((sent, response, files))
    }
    Answers(
      files = listed.map { case (host, (_, _, files)) => host -> files },
      unlisted = replies.collect { case (host, (_, _, Reply.Unlisted(why))) => host -> why },
      absent = listed.collect { case (host, (_, response, _)) if response.absent => host }.toSet,
      looked = listed.map { case (host, (sent, response, _)) =>
        host -> CopiesLookedFor(response.answerId, response.retired.toSet, response.unmatchedCopies)
      },
      ignored = listed.map { case (host, (_, response, _)) => host -> response.ignored },
      removed = replies.values.map(_._2.removed.size.toLong).sum,
      notRemoved = listed.map { case (host, (_, response, _)) => host -> response.notRemoved },
      closest = listed.collect {
        case (host, (_, response, _)) if response.closest.nonEmpty => host -> response.closest
      }
    )
  }
}
