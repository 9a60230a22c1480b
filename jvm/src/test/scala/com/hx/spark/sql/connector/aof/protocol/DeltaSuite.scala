package com.hx.spark.sql.connector.aof.protocol

import org.scalatest.funsuite.AnyFunSuite

class DeltaSuite extends AnyFunSuite {
  // Items are (key, value) pairs keyed by their first element.
  private def delta(before: Seq[(Int, String)], after: Seq[(Int, String)]) =
    Delta.between(before, after)(_._1)

  private val cases = Seq(
    // (what, before, after, changed, removed)
    ("nothing changed", Seq(1 -> "a", 2 -> "b"), Seq(1 -> "a", 2 -> "b"), Nil, Nil),
    ("one item changed", Seq(1 -> "a", 2 -> "b"), Seq(1 -> "a", 2 -> "B"), Seq(2 -> "B"), Nil),
    ("one item added", Seq(1 -> "a"), Seq(1 -> "a", 3 -> "c"), Seq(3 -> "c"), Nil),
    ("one item removed", Seq(1 -> "a", 2 -> "b"), Seq(2 -> "b"), Nil, Seq(1)),
    ("from nothing: everything", Nil, Seq(1 -> "a", 2 -> "b"), Seq(1 -> "a", 2 -> "b"), Nil),
    ("to nothing", Seq(1 -> "a"), Nil, Nil, Seq(1)),
    (
      "the same keys in another order",
      Seq(1 -> "a", 2 -> "b"),
      Seq(2 -> "B", 1 -> "a"),
      Seq(2 -> "B"),
      Nil),
    (
      "all at once",
      Seq(1 -> "a", 2 -> "b", 3 -> "c"),
      Seq(3 -> "C", 1 -> "a", 4 -> "d"),
      Seq(3 -> "C", 4 -> "d"),
      Seq(2))
  )

  cases.foreach { case (what, before, after, changed, removed) =>
    test(s"between and applied: $what") {
      val d = delta(before, after).get
      assert(d.changed === changed)
      assert(d.removed === removed)
      val applied = Delta.applied(before, d)(_._1)
      assert(applied.toMap === after.toMap)
      assert(applied.size === after.size)
    }
  }

  test("applied keeps the earlier order for kept items, new ones after them") {
    val before = Seq(1 -> "a", 2 -> "b", 3 -> "c")
    val d = Delta(Seq(4 -> "d", 2 -> "B"), Seq(1))
    assert(Delta.applied(before, d)(_._1) === Seq(2 -> "B", 3 -> "c", 4 -> "d"))
    // Nothing to apply: the list itself, which the next change is compared with object by object.
    assert(Delta.applied(before, Delta[Int, (Int, String)](Nil, Nil))(_._1) eq before)
  }

  test("two lists hold the same items in the same order, the same objects or equal ones") {
    val items = Vector(1 -> "a", 2 -> "b")
    assert(Delta.sameItems(items, items))
    assert(Delta.sameItems(items, List(1 -> "a", 2 -> "b")))
    assert(!Delta.sameItems(items, items.reverse))
    assert(!Delta.sameItems(items, items :+ (3 -> "c")))
    assert(!Delta.sameItems(items, items.updated(1, 2 -> "B")))
  }

  test("a list that repeats a key is not taken as a change: it is sent in full") {
    assert(delta(Seq(1 -> "a"), Seq(1 -> "a", 1 -> "b")) === None)
    assert(delta(Seq(1 -> "a", 1 -> "b"), Seq(1 -> "a", 1 -> "c")) === None)
    // Said of a list without repeats: the same keys are not checked again, others are.
    val unique = (before: Seq[(Int, String)], after: Seq[(Int, String)]) =>
      Delta.between(before, after, unique = true)(_._1)
    assert(
      unique(Seq(1 -> "a", 2 -> "b"), Seq(1 -> "a", 2 -> "B")) === Some(Delta(Seq(2 -> "B"), Nil)))
    assert(unique(Seq(1 -> "a"), Seq(1 -> "a", 1 -> "b")) === None)
  }
}
