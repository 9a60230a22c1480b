package com.hx.spark.sql.connector.aof.stream

import com.hx.spark.sql.connector.aof.offset.AofOffset

/**
 * The last three offsets a stream made or parsed, by their JSON: a trigger's start and a batch's
 * two ends. Spark gives each back as JSON to parse; they come back as the same objects, which
 * later steps compare by reference (`PlanMemos`, `Ranges`, `HostOffsets.changedSince`).
 */
private[stream] final class RecentOffsets(parse: String => AofOffset) {
  @volatile private var kept: List[(String, AofOffset)] = Nil

  /** The offset of `json`: the one kept, else parsed, and kept. */
  def parsed(json: String): AofOffset =
    kept.collectFirst { case (j, offset) if (j eq json) || j == json => offset }.getOrElse {
      keep(json, parse(json))
    }

  /** Keeps `offset`, whose JSON is `json`, unless kept already; returns it. */
  def keep(json: => String, offset: AofOffset): AofOffset = synchronized {
    if (!kept.exists(_._2 eq offset)) kept = ((json -> offset) :: kept).take(3)
    offset
  }
}
