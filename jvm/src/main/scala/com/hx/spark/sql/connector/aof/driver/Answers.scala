package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.files.FileMeta

/**
 * What the hosts answered: the files of those that listed their directory (`absent` those
 * without one), and why the others could not (their files are unknown this time, not gone).
 */
final case class Answers(
    files: Map[String, Seq[FileMeta]],
    unlisted: Map[String, String] = Map.empty,
    absent: Set[String] = Set.empty)
