package com.hx.spark.sql.connector.aof.config

import java.util.Locale
import java.util.regex.{Pattern, PatternSyntaxException}

import scala.collection.JavaConverters._
import scala.util.Try
import scala.util.matching.Regex

import com.fasterxml.jackson.databind.{DeserializationFeature, ObjectMapper}

/**
 * One documented source option, with its type and range. Every option the source reads is
 * listed in `options.json`, which this code, the Python package and the generated options table
 * all read: names, defaults and what a value may be cannot drift apart.
 *
 * @param kind     `int`, `long` (whole numbers of at least `min`), `boolean`, `choice` (one of
 *                 `choices`), `string` (matching `pattern`, when given), `regex` (a Java regex,
 *                 taken as given: its spaces count), `duration` (a whole number and its unit,
 *                 held in milliseconds) or `path`
 * @param expected what a valid value is, in words, for a string's error message
 * @param many     whether the option takes several values: a JSON array of strings gives
 *                 several, any other value is one
 * @param pair     the option set with this one, both or neither, and what the two are for
 */
final case class OptionSpec(
    key: String,
    kind: String,
    default: String,
    doc: String,
    min: Option[Long] = None,
    choices: Seq[String] = Nil,
    pattern: Option[String] = None,
    expected: Option[String] = None,
    many: Boolean = false,
    pair: Option[(String, String)] = None) {
  def sessionKey: String = OptionSpec.SessionPrefix + key

  /**
   * The values given, each to be checked on its own: for an option that takes several, the
   * strings of a JSON array (`["/var/log/a/.*", "/var/log/b/.*"]`); else `raw` itself. A regex
   * such as `[0-9]+` is one value, as it is not a JSON array of strings.
   */
  def values(raw: String): Seq[String] =
    Some(raw)
      .filter(_ => many)
      .flatMap(r => Try(OptionSpec.Json.readTree(r)).toOption)
      .filter(_.isArray)
      .map(_.elements().asScala.toVector)
      .filter(items => items.nonEmpty && items.forall(_.isTextual))
      .fold(Seq(raw))(_.map(_.asText))

  /** The value as this option holds it (Long, Int, Boolean or String), or what was expected. */
  def check(raw: String): Either[String, Any] = {
    val value = raw.trim
    kind match {
      case "int" | "long" =>
        val max = if (kind == "int") Int.MaxValue.toLong else Long.MaxValue
        val lowest = min.getOrElse(Long.MinValue)
        val whole = if (lowest == 1) say("positive") else say("from", "min" -> lowest)
        val words = if (kind == "int") say("upTo", "whole" -> whole, "max" -> max) else whole
        Try(value.toLong).toOption.filter(n => n >= lowest && n <= max) match {
          case Some(n) => Right(if (kind == "int") n.toInt else n)
          case None => Left(words)
        }
      case "boolean" =>
        value.toLowerCase(Locale.ROOT) match {
          case "true" => Right(true)
          case "false" => Right(false)
          case _ => Left(say("boolean"))
        }
      case "regex" =>
        try {
          Pattern.compile(raw)
          if (raw.isEmpty) Left(say("regex")) else Right(raw)
        } catch {
          case e: PatternSyntaxException =>
            val at = if (e.getIndex >= 0) say("at", "index" -> e.getIndex) else ""
            Left(say("regexSyntax", "description" -> e.getDescription, "at" -> at))
        }
      case "exact" => if (raw.isEmpty) Left(say("exact")) else Right(raw)
      case "duration" =>
        OptionSpec.durationMs(value).toRight(say("duration", "units" -> OptionSpec.UnitNames))
      case "choice" =>
        choices
          .find(_ == value.toLowerCase(Locale.ROOT))
          .toRight(choices.map(c => say("choice", "choice" -> c)).mkString(say("or")))
      case _ =>
        if (pattern.forall(value.matches)) Right(value)
        else Left(expected.getOrElse(say("pattern", "pattern" -> pattern.get)))
    }
  }

  private def say(name: String, fills: (String, Any)*): String =
    AofOptionSpecs.message(name, fills: _*)
}

object OptionSpec {
  val SessionPrefix: String = "spark.aof."

  // Lazy: options.json's reader makes the specs, and so this object, before it is done.
  private lazy val Duration: Regex =
    s"([0-9]+)(${AofOptionSpecs.Units.map(_._1).mkString("|")})".r
  private lazy val UnitNames: String = AofOptionSpecs.Units.map(_._1).mkString(", ")
  private lazy val UnitMs: Map[String, Long] = AofOptionSpecs.Units.toMap

  /** A duration's milliseconds: a whole number and a unit of options.json, more than 0. */
  private def durationMs(value: String): Option[Long] =
    Duration
      .findFirstMatchIn(value)
      .filter(_.matched == value)
      .flatMap(m => Try(Math.multiplyExact(m.group(1).toLong, UnitMs(m.group(2)))).toOption)
      .filter(_ > 0)

  // Strict, as Python's json module is: `["a"] x` is not an array.
  private val Json =
    new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
}
