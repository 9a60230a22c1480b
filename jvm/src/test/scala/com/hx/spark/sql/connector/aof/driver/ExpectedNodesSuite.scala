package com.hx.spark.sql.connector.aof.driver

import java.io.IOException

import scala.collection.mutable

import org.scalatest.OneInstancePerTest
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.cluster.NodeDiscovery
import com.hx.spark.sql.connector.aof.testkit.MovingClock

class ExpectedNodesSuite extends AnyFunSuite with OneInstancePerTest {

  /** A cluster manager whose answers the test sets: what fails here is the network. */
  private final class Manager extends NodeDiscovery {
    var answer: Either[String, Set[String]] = Right(Set.empty)
    var asked = 0
    override def source: String = "the manager"
    override def nodes(): Set[String] = {
      asked += 1
      answer.fold(why => throw new IOException(why), identity)
    }
  }

  private val said = mutable.ArrayBuffer.empty[String]
  private val clock = new MovingClock
  private val manager = new Manager
  private val expected = ExpectedNodes.discovered(
    manager,
    60000L,
    clock,
    m => said += s"WARN $m",
    m => said += s"INFO $m")

  private def now(): (Option[Set[String]], Seq[String]) = {
    said.clear()
    (expected.now(), said.toList)
  }

  test("a listed set is what it is, asked of nobody") {
    assert(ExpectedNodes.listed(Set("a")).now() === Some(Set("a")))
  }

  test("the manager is asked once per refresh period, and each change is said once") {
    manager.answer = Right(Set("a", "b"))
    assert(
      now() === ((Some(Set("a", "b")), Seq("INFO aof: the manager names 2 nodes to read: a, b"))))
    manager.answer = Right(Set("b", "c"))
    assert(now() === ((Some(Set("a", "b")), Nil)), "not asked before the period is over")
    assert(manager.asked === 1)
    clock.advance(60000L)
    assert(
      now() === ((
        Some(Set("b", "c")),
        Seq("INFO aof: the manager names 2 nodes to read now (new c; gone a)"))))
    clock.advance(60000L)
    assert(now() === ((Some(Set("b", "c")), Nil)), "the same nodes: nothing said")
    assert(manager.asked === 3)
  }

  test("a manager that cannot be asked keeps the nodes it named; each failure said once") {
    manager.answer = Left("connection refused")
    val (first, warned) = now()
    assert(first === None)
    assert(
      warned === Seq(
        "WARN aof: cannot ask the manager for the nodes to read (connection refused); no node " +
          "to read is known yet. It is asked again every 60 s (nodes.refresh.interval)."))
    clock.advance(60000L)
    assert(now() === ((None, Nil)), "the same failure: not said again")
    manager.answer = Right(Set("a"))
    clock.advance(60000L)
    assert(
      now() === ((
        Some(Set("a")),
        Seq(
          "INFO aof: the manager answers again",
          "INFO aof: the manager names 1 nodes to read: a"))))
    manager.answer = Left("HTTP 503")
    clock.advance(60000L)
    val (kept, again) = now()
    assert(kept === Some(Set("a")))
    assert(again.head.contains("the 1 nodes it named before stay those to read"), again)
  }
}
