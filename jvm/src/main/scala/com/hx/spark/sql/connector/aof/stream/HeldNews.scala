package com.hx.spark.sql.connector.aof.stream

import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.Reports

/**
 * The hosts' news of triggers that ran no batch (`batch.bytes.min`). The run hands each answer
 * to one trigger only, and an endpoint answers again only when its files change: a trigger after
 * a held one would not plan what the held one saw. So the next triggers from the same offsets
 * plan those hosts again from what they said then, unless they said something since. Used by the
 * thread that runs the triggers only.
 */
private[stream] final class HeldNews {
  private var held: Option[(AofOffset, Reports)] = None

  /** `reports`, with the news held at `start` of each host that brought none newer. */
  def along(start: AofOffset, reports: Reports): Reports = held match {
    case Some((at, news)) if (at eq start) || at == start =>
      reports.copy(files = news.files ++ reports.files, looked = news.looked ++ reports.looked)
    case _ => reports
  }

  /** A trigger from `start` planned with `reports` (`along` it) and ran no batch. */
  def hold(start: AofOffset, reports: Reports): Unit = held = Some(start -> reports)

  /** A trigger ran a batch, or found nothing new: there is nothing to hold. */
  def clear(): Unit = held = None
}
