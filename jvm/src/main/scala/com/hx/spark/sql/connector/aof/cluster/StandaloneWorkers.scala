package com.hx.spark.sql.connector.aof.cluster

import java.io.IOException

import scala.collection.JavaConverters._
import scala.util.{Failure, Success, Try}

import com.fasterxml.jackson.databind.JsonNode

/**
 * The alive workers of a Spark standalone master, from its web UI's JSON (`/json/`), which the
 * master has served since Spark 1: each worker's `host` and `state`. With several masters (high
 * availability), the one whose `status` is `ALIVE` answers; the others stand by.
 *
 * @param urls each master's web UI, `http://master:8080`
 */
final class StandaloneWorkers(urls: Seq[String]) extends NodeDiscovery {
  override def source: String = s"the standalone master at ${urls.mkString(" or ")}"

  override def nodes(): Set[String] = {
    val answers = urls.map(u => u -> Try(HttpJson.get(u.stripSuffix("/") + "/json/")))
    answers
      .collectFirst { case (_, Success(json)) if isAlive(json) => json }
      .map(
        _.path("workers")
          .elements()
          .asScala
          .filter(_.path("state").asText == "ALIVE")
          .map(_.path("host").asText)
          .toSet)
      .getOrElse {
        val why = answers.map {
          case (u, Failure(e)) => s"$u: ${e.getMessage}"
          case (u, Success(json)) => s"$u: ${json.path("status").asText("no status")}"
        }
        throw new IOException(s"no master answered as ALIVE (${why.mkString("; ")})")
      }
  }

  private def isAlive(json: JsonNode): Boolean =
    json.path("status").asText == "ALIVE"
}
