package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

class MessageSealSuite extends AnyFunSuite {
  private val (one, other) = (MessageSeal.newKey(), MessageSeal.newKey())
  private val payload = "a request".getBytes(UTF_8)

  test("a message sealed with a run's key opens with it, and with no other key") {
    val message = MessageSeal.seal(payload, one)
    assert(MessageSeal.open(message, one).sameElements(payload))
    intercept[IllegalArgumentException](MessageSeal.open(message, other))
    intercept[IllegalArgumentException](MessageSeal.open(message.updated(40, 'b'.toByte), one))
  }

  test("sealed text opens for its key and context only") {
    val text = MessageSeal.sealText("plan", one, "journal of host-1")
    assert(MessageSeal.openText(text, one, "journal of host-1") === Some("plan"))
    assert(MessageSeal.openText(text, one, "journal of host-2") === None)
    assert(MessageSeal.openText(text, other, "journal of host-1") === None)
  }
}
