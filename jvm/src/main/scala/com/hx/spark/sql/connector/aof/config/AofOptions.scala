package com.hx.spark.sql.connector.aof.config

import java.nio.file.{Path, Paths}
import java.util.Locale
import java.util.regex.{Pattern, PatternSyntaxException}

import com.hx.spark.sql.connector.aof.config.{AofOptionSpecs => O}

/**
 * The source's settings, parsed and checked once when the query is defined.
 *
 * @param directory    the literal directory part of `path`
 * @param fileNameRegex the last component of `path`, matched against whole file names
 * @param nodeNameEnv  the environment variable naming an executor's node, if nodes are not hosts
 */
final case class AofOptions(
    directory: Path,
    fileNameRegex: String,
    zookeeperAddress: Option[String],
    zookeeperSessionTimeoutMs: Int,
    zookeeperAuth: Option[ZooKeeperAuth],
    startingOffsets: StartingOffsets,
    bytesMax: Option[Long],
    nodeNameEnv: Option[String],
    metaStore: String,
    metaAwaitTimeoutMs: Long,
    startAwaitTimeoutMs: Long,
    md5CheckEnabled: Boolean,
    md5SampleLength: Int,
    partitionBytesMax: Long,
    lineLengthMax: Int,
    failOnDataLoss: Boolean) {

  def fileNamePattern: Pattern = Pattern.compile(fileNameRegex)
}

object AofOptions {

  /**
   * Reads the options of one query. An explicit `.option(...)` wins over the session conf
   * `spark.aof.<key>`; keys are case-insensitive like every Spark source option.
   *
   * @throws IllegalArgumentException naming the option and the fix, for any bad value
   */
  def parse(explicit: Map[String, String], sessionConf: Map[String, String]): AofOptions = {
    val fromSession = sessionConf.collect {
      case (k, v) if k.startsWith(OptionSpec.SessionPrefix) =>
        k.stripPrefix(OptionSpec.SessionPrefix).toLowerCase(Locale.ROOT) -> v
    }
    val merged = fromSession ++ explicit.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    val reader = new Reader(merged)
    val (directory, regex) = reader.path()
    AofOptions(
      directory = directory,
      fileNameRegex = regex,
      zookeeperAddress = reader.zookeeperAddress(),
      zookeeperSessionTimeoutMs = reader.positiveInt(O.ZookeeperSessionTimeout),
      zookeeperAuth = reader.zookeeperAuth(),
      startingOffsets = reader.startingOffsets(),
      bytesMax = reader.get(O.BytesMax).map(reader.positiveLong(O.BytesMax, _)),
      nodeNameEnv = reader.get(O.NodeNameEnv).map(reader.environmentVariable(O.NodeNameEnv, _)),
      metaStore = reader.metaStore(directory),
      metaAwaitTimeoutMs = reader.positiveLong(O.MetaAwaitTimeout),
      startAwaitTimeoutMs = reader.positiveLong(O.StartAwaitTimeout),
      md5CheckEnabled = reader.boolean(O.Md5CheckEnabled),
      md5SampleLength = reader.positiveInt(O.Md5SampleLength),
      partitionBytesMax = reader.positiveLong(O.PartitionBytesMax),
      lineLengthMax = reader.positiveInt(O.LineLengthMax),
      failOnDataLoss = reader.boolean(O.FailOnDataLoss)
    )
  }

  private final class Reader(options: Map[String, String]) {
    def get(spec: OptionSpec): Option[String] = options.get(spec.key).map(_.trim)

    def fail(spec: OptionSpec, value: String, expected: String): Nothing =
      throw new IllegalArgumentException(
        s"Invalid value '$value' for option '${spec.key}' (or '${spec.sessionKey}'): " +
          s"expected $expected.")

    def path(): (Path, String) = {
      val raw = get(O.Path)
        .filter(_.nonEmpty)
        .getOrElse(
          throw new IllegalArgumentException(
            "Option 'path' is required: set .option(\"path\", \"/var/log/app/service.log.*\") " +
              "or .load(\"/var/log/app/service.log.*\"), an absolute path whose last component " +
              "is a regex on file names."))
      if (!raw.startsWith("/")) fail(O.Path, raw, "an absolute path such as /var/log/app/app.log.*")
      val cut = raw.lastIndexOf('/')
      val (dir, regex) = (if (cut == 0) "/" else raw.substring(0, cut), raw.substring(cut + 1))
      if (regex.isEmpty) fail(O.Path, raw, "a file-name regex after the last '/'")
      try Pattern.compile(regex)
      catch {
        case e: PatternSyntaxException =>
          fail(O.Path, raw, s"a valid Java regex as the last component (${e.getDescription})")
      }
      (Paths.get(dir).normalize(), regex)
    }

    def environmentVariable(spec: OptionSpec, name: String): String =
      if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) name
      else fail(spec, name, "the name of an environment variable, such as NODE_NAME")

    def zookeeperAddress(): Option[String] = get(O.ZookeeperAddress).map { address =>
      val hostPort = "[^,:/\\s]+:\\d{1,5}"
      if (!address.matches(s"$hostPort(,$hostPort)*(/[^\\s]*)?")) {
        fail(O.ZookeeperAddress, address, "a connect string like host1:2181,host2:2181")
      }
      address
    }

    def zookeeperAuth(): Option[ZooKeeperAuth] =
      (get(O.ZookeeperAuthUser), get(O.ZookeeperAuthPassword)) match {
        case (None, None) => None
        case (Some(user), Some(password)) if user.nonEmpty && !user.contains(":") =>
          Some(ZooKeeperAuth(user, password))
        case (Some(user), Some(_)) => fail(O.ZookeeperAuthUser, user, "a user name without ':'")
        case (user, _) =>
          val (given, missing) =
            if (user.isDefined) (O.ZookeeperAuthUser, O.ZookeeperAuthPassword)
            else (O.ZookeeperAuthPassword, O.ZookeeperAuthUser)
          throw new IllegalArgumentException(
            s"Option '${given.key}' is set but '${missing.key}' is not: set both for ZooKeeper " +
              "digest authentication, or neither.")
      }

    def startingOffsets(): StartingOffsets =
      get(O.StartingOffsets).getOrElse(O.StartingOffsets.default).toLowerCase(Locale.ROOT) match {
        case "earliest" => StartingOffsets.Earliest
        case "latest" => StartingOffsets.Latest
        case other => fail(O.StartingOffsets, other, "'earliest' or 'latest'")
      }

    def metaStore(directory: Path): String = get(O.MetaStore) match {
      case None => "/aof" + (if (directory.toString == "/") "" else directory.toString)
      case Some(p) =>
        val valid = p.startsWith("/") && !p.endsWith("/") && !p.contains("//") && p.length > 1
        if (!valid) fail(O.MetaStore, p, "an absolute ZooKeeper path such as /aof/my-app")
        p
    }

    def boolean(spec: OptionSpec): Boolean =
      get(spec).getOrElse(spec.default).toLowerCase(Locale.ROOT) match {
        case "true" => true
        case "false" => false
        case other => fail(spec, other, "'true' or 'false'")
      }

    def positiveLong(spec: OptionSpec, value: String): Long =
      scala.util
        .Try(value.toLong)
        .toOption
        .filter(_ > 0)
        .getOrElse(fail(spec, value, "a positive whole number"))

    def positiveLong(spec: OptionSpec): Long = positiveLong(spec, get(spec).getOrElse(spec.default))

    def positiveInt(spec: OptionSpec): Int = {
      val value = get(spec).getOrElse(spec.default)
      val n = positiveLong(spec, value)
      if (n > Int.MaxValue) fail(spec, value, s"a positive whole number up to ${Int.MaxValue}")
      n.toInt
    }
  }
}
