package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.offset.AofOffset

/**
 * The outcome of planning one trigger.
 *
 * @param end    where the next micro-batch ends
 * @param losses bytes seen but never to be read, found while planning
 */
final case class Plan(end: AofOffset, losses: Seq[Loss])
