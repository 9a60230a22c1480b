package com.hx.spark.sql.connector.aof.driver

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.testkit.MovingClock

import org.scalatest.OneInstancePerTest
import org.scalatest.funsuite.AnyFunSuite

class UnreadNodesSuite extends AnyFunSuite with OneInstancePerTest {
  private val said = mutable.ArrayBuffer.empty[String]
  private val clock = new MovingClock
  private val unread =
    new UnreadNodes(3, 10000L, clock, "Do this.", m => said += s"WARN $m", m => said += s"INFO $m")

  /** The triggers given (expected, read), five seconds apart, and what was said over them. */
  private def triggers(seen: (Set[String], Set[String])*): (NodesRead, Seq[String]) = {
    said.clear()
    val last = seen.map { case (expected, read) =>
      clock.advance(5000L)
      unread.update(Some(expected), read)
    }.last
    (last, said.toList)
  }

  private val abc = Set("a", "b", "c")

  test("a node unread for three triggers and ten seconds: warned about once, then read again") {
    val (read, warned) = triggers((abc, Set("a")), (abc, Set("a", "b")), (abc, Set("a", "b")))
    assert(read === NodesRead(Some(abc), Set("c")))
    assert(
      warned === Seq(
        "WARN aof: 1 of the 3 nodes to read ('nodes') have had no endpoint for 10 s: c. " +
          "Their files wait for an executor there, and what logrotate deletes meanwhile is " +
          "lost. Do this."))
    assert(triggers((abc, Set("a", "b")), (abc, Set("a", "b")))._2 === Nil, "said once")
    val (again, back) = triggers((abc, abc))
    assert(again.unread === Set.empty)
    assert(back === Seq("INFO aof: c read again"))
  }

  test("three quick triggers are not enough: a query with nothing to read triggers at once") {
    val quick = (1 to 10).flatMap { _ =>
      said.clear()
      clock.advance(500L)
      unread.update(Some(abc), Set("a", "b"))
      said.toList
    }
    assert(quick === Nil)
    clock.advance(5500L) // ten seconds since the first of them
    assert(unread.update(Some(abc), Set("a", "b")).unread === Set("c"))
    assert(said.size === 1, "ten seconds, and more triggers")
  }

  test("a node that joins those unread long is warned about with the others; a blip is not") {
    triggers((abc, Set("a")), (abc, Set("a", "b")), (abc, Set("a")))
    val (_, warned) = triggers((abc, Set("a")), (abc, Set("a")), (abc, Set("a")))
    assert(warned.size === 1 && warned.head.contains("2 of the 3 nodes"), warned)
    assert(warned.head.contains(": b, c."), warned)
  }

  test("a node named otherwise than its host is read under is pointed out") {
    val (read, warned) =
      triggers(Seq.fill(3)((Set("a.example.com"), Set("a", "d"))): _*)
    assert(read.unread === Set("a.example.com"))
    assert(
      warned.head.endsWith(
        "Nodes are named as the host column shows them; read but not named in 'nodes': a, d."),
      warned)
  }

  test("metrics: counts, and the first twenty names") {
    val many = (1 to 25).map(i => f"n$i%02d").toSet
    val read = unread.update(Some(many + "r"), Set("r"))
    assert(read.metrics("nodesExpected") === "26")
    assert(read.metrics("nodesUnread") === "25")
    assert(
      read.metrics("nodesUnreadNames") === (1 to 20).map(i => f"n$i%02d").mkString(", ") +
        " and 5 more")
    assert(NodesRead(None, Set.empty).metrics === Map.empty)
  }
}
