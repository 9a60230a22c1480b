package com.hx.spark.sql.connector.aof.driver

import org.scalatest.funsuite.AnyFunSuite

/** Which hosts a trigger warns about or cannot finish without, from what it learned of them. */
class HostCensusSuite extends AnyFunSuite {
  private case class Row(
      what: String,
      wanted: Set[String],
      unknown: Set[String],
      watched: Set[String],
      answered: Set[String],
      unlisted: Set[String],
      heard: Set[String],
      withoutEndpoint: Set[String],
      unheard: Set[String],
      silent: Set[String])

  private val (a, b, h, ab, none) = (Set("a"), Set("b"), Set("h"), Set("a", "b"), Set.empty[String])

  // format: off
  private val rows = Seq(
    Row("all serve and answer",               ab, none, ab, ab, none, none, none, none, none),
    Row("one serves, answers late",           ab, none, ab, a, none, none, none, b, b),
    Row("one cannot list its directory",      ab, none, ab, a, b, none, none, none, none),
    Row("one without an endpoint yet",        ab, none, a, a, none, none, b, b, none),
    Row("an executor of unknown node",        a, h, a, a, none, none, h, h, none),
    Row("a node serving with no executor",    a, none, ab, a, none, none, none, none, b),
    Row("an answer from a node left",         a, none, a, ab, none, none, none, none, none),
    Row("one answered, not seen serving yet", ab, none, a, ab, none, b, none, none, none),
    Row("one answered before, serves no more", ab, none, a, ab, none, none, b, none, none),
    Row("no executors",                       none, none, none, none, none, none, none, none, none)
  )
  // format: on

  rows.foreach { r =>
    test(r.what) {
      val census = HostCensus(r.wanted, r.unknown, r.watched, r.answered, r.unlisted, r.heard)
      assert(
        (census.withoutEndpoint, census.unheard, census.silent) ===
          ((r.withoutEndpoint, r.unheard, r.silent)))
    }
  }
}
