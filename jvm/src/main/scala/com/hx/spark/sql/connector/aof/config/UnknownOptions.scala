package com.hx.spark.sql.connector.aof.config

import java.util.concurrent.ConcurrentHashMap

import org.apache.commons.text.similarity.LevenshteinDistance
import org.slf4j.LoggerFactory

import com.hx.spark.sql.connector.aof.config.{AofOptionSpecs => O}

/**
 * Option names the source does not know: a typo (`bytes.maxx`) would otherwise be ignored
 * silently. Warned about, not refused, as Spark's own sources let other options through; each
 * name once per JVM, with the closest known one.
 */
object UnknownOptions {
  private val log = LoggerFactory.getLogger(getClass)
  private val warned = ConcurrentHashMap.newKeySet[String]()
  private val distance = LevenshteinDistance.getDefaultInstance

  /** The known option closest to `name`, when one is close enough to be what was meant. */
  def closest(name: String): Option[String] =
    O.All
      .map(o => o.key -> distance.apply(name, o.key).intValue)
      .filter { case (key, d) => d <= math.max(2, key.length / 4) }
      .sortBy(_._2)
      .headOption
      .map(_._1)

  /** Warns once about each of `keys` (lower case, as parsed) that no option has. */
  def warn(keys: Iterable[String]): Unit = {
    val known = O.All.map(_.key).toSet
    keys.filterNot(known).filter(warned.add).foreach { key =>
      val hint = closest(key).fold(s"known options: ${O.All.map(_.key).mkString(", ")}")(k =>
        s"did you mean '$k'?")
      log.warn(s"aof: unknown option '$key' is ignored; $hint")
    }
  }
}
