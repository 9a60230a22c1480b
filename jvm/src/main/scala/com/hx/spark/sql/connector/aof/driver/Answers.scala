package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.files.FileMeta
import com.hx.spark.sql.connector.aof.plan.Looked

/**
 * What the hosts answered: the files of those that listed their directory (`absent` those
 * without one), why the others could not (their files are unknown this time, not gone), and the
 * retired files each looked for copies of, and how many files each left unread for
 * `ignore.older`.
 */
final case class Answers(
    files: Map[String, Seq[FileMeta]],
    unlisted: Map[String, String] = Map.empty,
    absent: Set[String] = Set.empty,
    looked: Map[String, Looked] = Map.empty,
    ignored: Map[String, Int] = Map.empty)
