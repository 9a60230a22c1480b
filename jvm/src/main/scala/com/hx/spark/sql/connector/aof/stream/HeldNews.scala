package com.hx.spark.sql.connector.aof.stream

import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.News

/**
 * The hosts' news of triggers that ran no batch (`batch.bytes.min`). The run hands each answer
 * to one trigger only, and an endpoint answers again only when its files change: a trigger after
 * a held one would not plan what the held one saw. So the next triggers from the same offsets
 * plan those hosts again from what they said then, unless they said something since. Used by the
 * thread that runs the triggers only.
 */
private[stream] final class HeldNews {
  private var held: Option[(AofOffset, News)] = None

  /** `news`, with the news held at `start` of each host that brought none newer. */
  def along(start: AofOffset, news: News): News = held match {
    case Some((at, kept)) if (at eq start) || at == start =>
      news.copy(files = kept.files ++ news.files, looked = kept.looked ++ news.looked)
    case _ => news
  }

  /** A trigger from `start` planned with `news` (`along` it) and ran no batch. */
  def hold(start: AofOffset, news: News): Unit = held = Some(start -> news)

  /** A trigger ran a batch, or found nothing new: there is nothing to hold. */
  def clear(): Unit = held = None
}
