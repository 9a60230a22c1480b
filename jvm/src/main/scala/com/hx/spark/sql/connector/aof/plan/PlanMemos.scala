package com.hx.spark.sql.connector.aof.plan

import java.util.concurrent.ConcurrentHashMap

/**
 * Each host's [[PlanMemo]], kept by whoever plans again and again (a stream, a follower).
 *
 * @param keeps       false: keeps none, and every plan is made in full
 * @param mostChanged a memo is used while at most one file in this many changed
 */
final class PlanMemos(keeps: Boolean = true, mostChanged: Int = 4) {
  private val byHost = new ConcurrentHashMap[String, PlanMemo]()

  private[plan] def of(host: String): Option[(PlanMemo, Int)] =
    Option(byHost.get(host)).map(_ -> mostChanged)

  private[plan] def keep(host: String, memo: PlanMemo): Unit = if (keeps) byHost.put(host, memo)
}

object PlanMemos {

  /** Keeps nothing: every plan in full. */
  def none: PlanMemos = new PlanMemos(keeps = false)

  /** Uses its memos however much changed: the models plan through them, against plans in full. */
  def always: PlanMemos = new PlanMemos(mostChanged = 1)
}
