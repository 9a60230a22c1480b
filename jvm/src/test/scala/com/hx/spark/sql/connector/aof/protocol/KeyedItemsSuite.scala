package com.hx.spark.sql.connector.aof.protocol

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class KeyedItemsSuite extends AnyFunSuite {
  // Items are (key, value) pairs keyed by their first element.
  private type Item = (Int, String)
  private def keyed(items: Seq[Item]) = KeyedItems(items)(_._1)
  private def applied(before: Seq[Item], delta: Delta[Int, Item]) =
    Delta.applied(before, delta)(_._1)

  private val cases = Seq(
    // (what, before, change, removed)
    ("nothing", Seq(1 -> "a", 2 -> "b"), Nil, Nil),
    ("one item replaced", Seq(1 -> "a", 2 -> "b", 3 -> "c"), Seq(2 -> "B"), Nil),
    (
      "two replaced, the later first",
      Seq(1 -> "a", 2 -> "b", 3 -> "c"),
      Seq(3 -> "C", 1 -> "A"),
      Nil),
    ("one replaced twice: the last", Seq(1 -> "a", 2 -> "b"), Seq(2 -> "B", 2 -> "BB"), Nil),
    ("one added", Seq(1 -> "a"), Seq(3 -> "c"), Nil),
    ("one replaced and one added", Seq(1 -> "a", 2 -> "b"), Seq(5 -> "e", 1 -> "A"), Nil),
    ("one removed", Seq(1 -> "a", 2 -> "b"), Nil, Seq(1)),
    ("from nothing", Nil, Seq(1 -> "a", 2 -> "b"), Nil),
    ("a list that repeats a key", Seq(1 -> "a", 2 -> "b", 1 -> "c"), Seq(1 -> "A"), Nil)
  )

  cases.foreach { case (what, before, changed, removed) =>
    test(s"a change applied is the list Delta.applied makes: $what") {
      val delta = Delta(changed, removed)
      assert(keyed(before).applied(delta).items === applied(before, delta))
    }
  }

  test("an empty change is the list itself, its items the same objects") {
    val before = keyed(Seq(1 -> "a"))
    assert(before.applied(Delta[Int, Item](Nil, Nil)) eq before)
  }

  test("changes applied one after the other make what Delta.applied makes, at random") {
    val random = new Random(7)
    (1 to 200).foreach { run =>
      var expected: Seq[Item] = (1 to random.nextInt(20)).map(k => k -> s"v$k")
      var actual = keyed(expected)
      (1 to 30).foreach { step =>
        val keys = expected.map(_._1)
        // Mostly items replaced, as a written file's answers are; sometimes added or removed.
        val replaced = keys.filter(_ => random.nextInt(5) == 0).map(k => k -> s"v$k.$step")
        val added =
          if (random.nextInt(4) == 0) Seq((100 + run * 40 + step) -> s"new$step") else Nil
        val removed = if (random.nextInt(6) == 0) keys.take(1) else Nil
        val delta = Delta(random.shuffle(replaced ++ added), removed)
        expected = applied(expected, delta)
        actual = actual.applied(delta)
        assert(actual.items === expected, s"run $run, step $step")
        assert(actual.items.zip(expected).forall { case (a, e) => a eq e }, s"run $run, $step")
      }
    }
  }
}
