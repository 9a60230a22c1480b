package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.UTF_8
import java.security.{MessageDigest, SecureRandom}
import java.util.Base64
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec

import scala.util.Try

/**
 * Seals a message with an HMAC of the run's secret: `version (1 byte) | HMAC-SHA256 | payload`.
 * ZooKeeper may be writable by others (no ACLs, or a shared user); a sealed request can only come
 * from the run's driver and a sealed answer only from one of its endpoints.
 */
object MessageSeal {
  private val Version: Byte = 1
  private val MacLength = 32

  def newKey(): String = {
    val key = new Array[Byte](32)
    new SecureRandom().nextBytes(key)
    Base64.getEncoder.encodeToString(key)
  }

  def seal(payload: Array[Byte], key: String): Array[Byte] =
    Array(Version) ++ mac(payload, key) ++ payload

  /** The payload, or an IllegalArgumentException when the seal is not the run's. */
  def open(message: Array[Byte], key: String): Array[Byte] = {
    require(
      message.length > 1 + MacLength && message(0) == Version,
      "aof: not a sealed message of this version")
    val payload = message.drop(1 + MacLength)
    val expected = mac(payload, key)
    require(
      MessageDigest.isEqual(expected, message.slice(1, 1 + MacLength)),
      "aof: message not sealed by this query run")
    payload
  }

  /**
   * `text` sealed as text, for values kept as text (a real-time journal, also in the checkpoint's
   * copy): the base64 HMAC of `context` and `text`, a space, then `text`. `context` says what the
   * text is and whose, so that no sealed text passes for another.
   */
  def sealText(text: String, key: String, context: String): String =
    Base64.getEncoder.encodeToString(mac(s"$context\n$text".getBytes(UTF_8), key)) + " " + text

  /** The text [[sealText]] sealed with `key` for `context`; None when it is not. */
  def openText(value: String, key: String, context: String): Option[String] = {
    val cut = value.indexOf(' ')
    val text = value.substring(cut + 1)
    val given = Try(Base64.getDecoder.decode(value.substring(0, math.max(cut, 0))))
    given.toOption
      .filter { g =>
        cut > 0 && MessageDigest.isEqual(g, mac(s"$context\n$text".getBytes(UTF_8), key))
      }
      .map(_ => text)
  }

  private def mac(payload: Array[Byte], key: String): Array[Byte] = {
    val keyed = macs.get
    if (keyed.key != key) {
      keyed.mac.init(new SecretKeySpec(Base64.getDecoder.decode(key), "HmacSHA256"))
      keyed.key = key
    }
    // Ready for the same key again after it.
    keyed.mac.doFinal(payload)
  }

  // A thread's HMAC, with the key it was last given: looking one up walks the JVM's security
  // providers, the most of a small message's seal, and a task seals one a plan, 125 a second.
  private final class Keyed(val mac: Mac, var key: String)
  private val macs =
    ThreadLocal.withInitial[Keyed](() => new Keyed(Mac.getInstance("HmacSHA256"), null))
}
