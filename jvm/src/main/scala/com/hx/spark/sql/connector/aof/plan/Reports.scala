package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.files.FileMeta

/**
 * What the hosts answered for one trigger: each host's files, which of the retired files the
 * driver asked about each one looked for copies of ([[CopiesLookedFor]]), and how many files each left
 * unread for `ignore.older`; and the hosts that answered, those that could not list their
 * directory included.
 */
final case class Reports(
    files: Map[String, Seq[FileMeta]],
    looked: Map[String, CopiesLookedFor] = Map.empty,
    ignored: Map[String, Int] = Map.empty,
    answered: Set[String] = Set.empty)

/**
 * The retired files (by file id) that a host's answer to the request `answer` looked for copies
 * of: only such an answer can say that no copy of one is there.
 */
final case class CopiesLookedFor(answer: String, ids: Set[String])
