package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

class FairShareSuite extends AnyFunSuite {
  private case class Row(what: String, wants: Seq[Long], total: Long, shares: Seq[Long])

  // format: off
  private val table = Seq(
    Row("enough for all: each gets what it wants", Seq(10, 20, 30), 100, Seq(10, 20, 30)),
    Row("too little: an even share each", Seq(100, 100), 50, Seq(25, 25)),
    Row("a small want is met whole, the rest shared by the others", Seq(1000, 10, 1000), 210, Seq(100, 10, 100)),
    Row("several levels fill up in turn", Seq(5, 50, 500, 5000), 1000, Seq(5, 50, 472, 473)),
    Row("more files than bytes: one byte each, none starves", Seq(70, 80, 90), 2, Seq(1, 1, 1)),
    Row("a file wanting nothing gets nothing", Seq(0, 40), 100, Seq(0, 40))
  )
  // format: on

  table.foreach { row =>
    test(row.what) {
      val shares = FairShare.of(row.wants.indices.zip(row.wants), row.total)
      assert(row.wants.indices.map(shares.getOrElse(_, 0L)) === row.shares)
      assert(shares.values.sum <= math.max(row.total, row.wants.count(_ > 0).toLong))
    }
  }

  test("equal wants are shared in the order given, the same at every call") {
    val wants = Seq("b" -> 100L, "a" -> 100L, "c" -> 100L)
    assert(FairShare.of(wants, 200) === Map("b" -> 66L, "a" -> 67L, "c" -> 67L))
    assert(FairShare.of(wants, 200) === FairShare.of(wants, 200))
  }
}
