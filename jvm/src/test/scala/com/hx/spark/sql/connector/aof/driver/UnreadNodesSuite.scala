package com.hx.spark.sql.connector.aof.driver

import scala.collection.mutable

import org.scalatest.OneInstancePerTest
import org.scalatest.funsuite.AnyFunSuite

class UnreadNodesSuite extends AnyFunSuite with OneInstancePerTest {
  private val said = mutable.ArrayBuffer.empty[String]
  private val unread =
    new UnreadNodes(3, "Do this.", m => said += s"WARN $m", m => said += s"INFO $m")

  /** The triggers given (expected, read), and what was said over them. */
  private def triggers(seen: (Set[String], Set[String])*): (NodesRead, Seq[String]) = {
    said.clear()
    val last = seen.map { case (expected, read) => unread.update(Some(expected), read) }.last
    (last, said.toList)
  }

  private val abc = Set("a", "b", "c")

  test("a node unread for three triggers is warned about once, then once read again") {
    val (read, warned) = triggers((abc, Set("a")), (abc, Set("a", "b")), (abc, Set("a", "b")))
    assert(read === NodesRead(Some(abc), Set("c")))
    assert(
      warned === Seq(
        "WARN aof: 1 of the 3 nodes to read ('nodes') have had no endpoint for 3 triggers: c. " +
          "Their files wait for an executor there, and what logrotate deletes meanwhile is " +
          "lost. Do this."))
    assert(triggers((abc, Set("a", "b")), (abc, Set("a", "b")))._2 === Nil, "said once")
    val (again, back) = triggers((abc, abc))
    assert(again.unread === Set.empty)
    assert(back === Seq("INFO aof: c read again"))
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
