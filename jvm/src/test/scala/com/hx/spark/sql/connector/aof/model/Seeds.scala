package com.hx.spark.sql.connector.aof.model

import scala.util.Random

/**
 * Which seeds a model suite runs, and the operations a seed makes. `AOF_MODEL_SEED` replays one
 * seed; `AOF_MODEL_SEEDS` sets how many (the long form, `make test-model`), from 1 on.
 */
object Seeds {
  def of(fast: Int, variable: String = "AOF_MODEL_SEEDS"): Seq[Long] =
    sys.env.get("AOF_MODEL_SEED") match {
      case Some(one) => Seq(one.toLong)
      case None => (1L to sys.env.get(variable).fold(fast.toLong)(_.toLong)).toList
    }

  /**
   * The next operation on a random log: lines most often, every rotation step now and then.
   * Depends only on the seed's random numbers and the world's state, never on what was read.
   */
  def nextOp(world: RotationWorld, logs: Int, rnd: Random): Op = {
    val choices = world.choices(rnd.nextInt(logs))
    val weighted = choices.flatMap {
      case a: Op.Append => Seq.fill(if (a.lines == 1) 6 else 4)(a)
      case other => Seq(other)
    }
    weighted(rnd.nextInt(weighted.size))
  }

  /** The message for a failure: how to replay it, and the operations that led there. */
  def failed(seed: Long, ops: Seq[String], e: Throwable): String =
    s"seed $seed failed (replay: AOF_MODEL_SEED=$seed): ${e.getMessage}\n" +
      s"its last operations:\n  ${ops.takeRight(40).mkString("\n  ")}"
}
