package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopy
import com.hx.spark.sql.connector.aof.files.identity.FileMeta

/**
 * What the hosts told one trigger: the files of each host to plan (those with news), which of
 * the retired files the driver asked about each one looked for copies of ([[CopiesLookedFor]]),
 * and how many files each left unread for `ignore.older`; the hosts whose latest answer is
 * current, those that could not list their directory included; and every host's files as its
 * latest answer said (`files` included), for the figures of the backlog.
 */
final case class News(
    files: Map[String, Seq[FileMeta]],
    looked: Map[String, CopiesLookedFor] = Map.empty,
    ignored: Map[String, Int] = Map.empty,
    answered: Set[String] = Set.empty,
    latest: Map[String, Seq[FileMeta]] = Map.empty) {

  /** Every host's latest files: `latest`, or `files` where a caller gave no `latest`. */
  def everyHost: Map[String, Seq[FileMeta]] = latest ++ files

  /** The hosts whose latest answer is current and lists their files. */
  def listed: Set[String] = answered.filter(everyHost.contains) ++ files.keySet
}

/**
 * The retired files (by file id) that a host's answer to the request `answer` looked for copies
 * of: only such an answer can say that no copy of one is there. `unmatched`: of those, the ones
 * whose bytes past their position a file the source does not read holds ([[UnmatchedCopy]]).
 */
final case class CopiesLookedFor(
    answer: String,
    ids: Set[String],
    unmatched: Map[String, UnmatchedCopy] = Map.empty)
