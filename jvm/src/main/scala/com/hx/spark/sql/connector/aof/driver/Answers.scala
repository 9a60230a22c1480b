package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.files.identity.FileMeta
import com.hx.spark.sql.connector.aof.plan.CopiesLookedFor
import com.hx.spark.sql.connector.aof.protocol.{Answer, Answered, SentRequest}

/**
 * What the hosts answered: the files of those that listed their directory (`absent` those
 * without one), why the others could not (their files are unknown this time, not gone), and the
 * retired files each looked for copies of, and how many files each left unread for
 * `ignore.older`, and how many files they removed for `cleanup`, and how many each could not;
 * the files closest to `path` on the hosts with none ([[Answer]]'s `closest`); and every host
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

  /** What each host's answer says, with the request it answers and the answer itself. */
  def of(answered: Map[String, (SentRequest, Answer, Answered)]): Answers = {
    val listed = answered.collect { case (host, (sent, answer, Answered.Listed(files))) =>
      host -> ((sent, answer, files))
    }
    Answers(
      files = listed.map { case (host, (_, _, files)) => host -> files },
      unlisted = answered.collect { case (host, (_, _, Answered.Unlisted(why))) => host -> why },
      absent = listed.collect { case (host, (_, answer, _)) if answer.absent => host }.toSet,
      looked = listed.map { case (host, (sent, answer, _)) =>
        host -> CopiesLookedFor(answer.answerId, answer.retired.toSet, answer.unmatchedCopies)
      },
      ignored = listed.map { case (host, (_, answer, _)) => host -> answer.ignored },
      removed = answered.values.map(_._2.removed.size.toLong).sum,
      notRemoved = listed.map { case (host, (_, answer, _)) => host -> answer.notRemoved },
      closest = listed.collect {
        case (host, (_, answer, _)) if answer.closest.nonEmpty => host -> answer.closest
      }
    )
  }
}
