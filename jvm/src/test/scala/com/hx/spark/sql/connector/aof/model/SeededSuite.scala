package com.hx.spark.sql.connector.aof.model

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

/**
 * A model suite: its seeds run a few to a test, a failure naming the seed to replay and the
 * operations that led there ([[Seeds.failed]]), and what all of them covered said at the end.
 */
trait SeededSuite extends AnyFunSuite {

  /** What the seeds did, by kind: what a run covered. */
  protected val covered: mutable.Map[String, Int] =
    mutable.Map.empty[String, Int].withDefaultValue(0)

  /** @param runSeed runs one seed, noting each operation it makes in the buffer it is given */
  protected def seedTests(title: String, claim: String, seeds: Seq[Long], perTest: Int)(
      runSeed: (Long, mutable.ArrayBuffer[String]) => Unit): Unit =
    seeds.grouped(perTest).foreach { group =>
      test(s"$title, seeds ${group.head} to ${group.last}: $claim") {
        group.foreach { seed =>
          val done = mutable.ArrayBuffer.empty[String]
          try runSeed(seed, done)
          catch { case e: Throwable => fail(Seeds.failed(seed, done.toSeq, e), e) }
        }
        if (group.last == seeds.last && covered.nonEmpty) {
          val counts = covered.toSeq.sorted.map { case (what, n) => s"$what $n" }
          info(s"all seeds: ${counts.mkString(", ")}")
        }
      }
    }
}
