package com.hx.spark.sql.connector.aof.zookeeper

import java.util.concurrent.ConcurrentHashMap

import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.protocol.MessageSeal

/**
 * The seals of one host's plan journal at `path`: its start and its plans, each sealed for what
 * it is and whose, with the query's journal key. A value whose seal fails is not the query's
 * (anyone who can write ZooKeeper may have written it): it is read as none, and said once.
 */
private[zookeeper] final class JournalSeal(val host: String, path: String, key: String) {
  def start(text: String): String = MessageSeal.sealText(text, key, s"journal start $host")

  def plans(text: String): String = MessageSeal.sealText(text, key, s"journal plans $host")

  def openStart(value: String): Option[String] = open(value, s"journal start $host", "start")

  def openPlans(value: String): Option[String] = open(value, s"journal plans $host", "plans")

  private def open(value: String, context: String, what: String): Option[String] = {
    val text = MessageSeal.openText(value, key, context)
    if (text.isEmpty) JournalSeal.refused(s"$path/$what")
    text
  }
}

private object JournalSeal {
  private val log = LoggerFactory.getLogger(classOf[JournalSeal])
  // Each znode said once a JVM, up to a bound.
  private val said = ConcurrentHashMap.newKeySet[String]()
  private val SaidMax = 1000

  def refused(znode: String): Unit =
    if (said.size < SaidMax && said.add(znode)) {
      log.warn(
        s"aof: ignored $znode: it is not sealed by this query (another wrote it to ZooKeeper). " +
          "Its host's task plans anew from its batch's start; see docs/security.md.")
    }
}
