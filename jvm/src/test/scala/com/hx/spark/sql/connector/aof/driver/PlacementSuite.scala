package com.hx.spark.sql.connector.aof.driver

import org.scalatest.funsuite.AnyFunSuite

class PlacementSuite extends AnyFunSuite {

  private val cases = Seq(
    ("yarn", true, false) -> None,
    ("yarn", false, false) -> Some("spark.dynamicAllocation.enabled=true"),
    ("yarn", true, true) -> Some("node.name.env"),
    ("spark://m:7077", true, false) -> Some("run a worker on each"),
    ("k8s://https://api:6443", true, true) -> Some("topologySpreadConstraints"),
    ("local[2]", false, false) -> Some("Local mode")
  )

  cases.foreach { case ((master, dynamic, named), refused) =>
    test(s"placement on $master, dynamic allocation $dynamic, node.name.env $named") {
      val possible = Placement.possible(master, dynamic, named)
      refused match {
        case None => assert(possible === Right(()))
        case Some(words) => assert(possible.left.exists(_.contains(words)), possible)
      }
      assert(Placement.advice(master, dynamic, named).contains("docs/deploying.md#every-node-read"))
    }
  }
}
