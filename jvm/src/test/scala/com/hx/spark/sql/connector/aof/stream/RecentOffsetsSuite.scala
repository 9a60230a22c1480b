package com.hx.spark.sql.connector.aof.stream

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}

class RecentOffsetsSuite extends AnyFunSuite {
  private def offset(serial: Long) = AofOffset(Map("h" -> HostOffsets(serial, Map.empty)))

  test("an offset made is given back for its JSON as itself, as are the last three parsed") {
    var parses = 0
    val recent = new RecentOffsets(json => { parses += 1; AofOffset.fromJson(json) })
    val made = offset(1L)
    recent.keep(made.json(), made)
    assert(recent.parsed(new String(made.json())) eq made)
    assert(parses == 0)
    val json = Seq(2L, 3L, 4L).map(offset(_).json())
    val first = json.map(recent.parsed)
    assert(json.map(recent.parsed).zip(first).forall { case (a, b) => a eq b })
    assert(parses == 3)
    // Four later, the one made is no longer kept: parsed again, equal but another object.
    val again = recent.parsed(made.json())
    assert(again == made && !(again eq made) && parses == 4)
  }
}
