package com.hx.spark.sql.connector.aof.config

import java.nio.charset.{CharacterCodingException, Charset, IllegalCharsetNameException}
import java.nio.charset.UnsupportedCharsetException
import java.nio.file.{FileSystems, Paths}
import java.util.regex.{Pattern, PatternSyntaxException}

import scala.collection.mutable

import com.hx.spark.sql.connector.aof.config.{AofOptionSpecs => O}
import com.hx.spark.sql.connector.aof.files.cleanup.Cleanup
import com.hx.spark.sql.connector.aof.files.container.LineFormat
import com.hx.spark.sql.connector.aof.files.lines.LineEnding
import com.hx.spark.sql.connector.aof.files.listing.{DirectoryGlob, PathPattern}
import com.hx.spark.sql.connector.aof.files.records.RecordRule
import com.hx.spark.sql.connector.aof.files.rows.{FileHeader, PathColumns}

/**
 * The options of one query as given (explicit ones over the session's), each read and checked
 * on demand against its [[OptionSpec]], and the options read together: a pair, the ZooKeeper
 * security, the multi-line rule, the nodes. Every refusal names the option and the fix.
 */
private[config] final class OptionReader(options: Map[String, String]) {
  private val asked = mutable.Set.empty[String]

  /** The keys read so far, set or not: a suite holds that every option is read. */
  def keysAsked: Set[String] = asked.toSet

  /** An option's value as given, untrimmed: a regex's spaces are part of it. */
  private def raw(spec: OptionSpec): Option[String] = {
    asked += spec.key
    options.get(spec.key)
  }

  def get(spec: OptionSpec): Option[String] = raw(spec).map(_.trim)

  def fail(spec: OptionSpec, value: String, expected: String): Nothing =
    throw new IllegalArgumentException(
      O.message(
        "invalid",
        "value" -> value,
        "key" -> spec.key,
        "sessionKey" -> spec.sessionKey,
        "expected" -> expected))

  /** Each of `path`'s paths: one, or a JSON array of them; `default` when none is given. */
  def paths(default: Seq[String] = Nil): Seq[PathPattern] = {
    val named = get(O.Path).filter(_.nonEmpty).map(O.Path.values)
    val raw = named
      .orElse(Some(default).filter(_.nonEmpty))
      .getOrElse(
        throw new IllegalArgumentException(
          "Option 'path' is required: set .option(\"path\", \"/var/log/app/service.log.*\") " +
            "or .load(\"/var/log/app/service.log.*\"), an absolute path whose last component " +
            "is a regex on file names (or a JSON array of such paths)."))
    raw.map(p => path(p.trim))
  }

  /** The values of an option that takes several, each checked; none when it is not set. */
  def many(spec: OptionSpec): Seq[String] =
    raw(spec).toSeq.flatMap(spec.values(_).map(checked(spec, _)))

  private def path(raw: String): PathPattern = {
    if (!raw.startsWith("/")) fail(O.Path, raw, "an absolute path such as /var/log/app/app.log.*")
    val cut = raw.lastIndexOf('/')
    val (dir, regex) = (if (cut == 0) "/" else raw.substring(0, cut), raw.substring(cut + 1))
    if (regex.isEmpty) fail(O.Path, raw, "a file-name regex after the last '/'")
    try Pattern.compile(regex)
    catch {
      case e: PatternSyntaxException if regex.contains("*") || regex.contains("?") =>
        val meant = s"${if (cut == 0) "" else dir}/${PathMistakes.globAsRegex(regex)}"
        fail(
          O.Path,
          raw,
          s"a Java regex on file names as the last component, not a shell glob " +
            s"(${e.getDescription}): for the files the glob names, use '$meant'"
        )
      case e: PatternSyntaxException =>
        fail(O.Path, raw, s"a valid Java regex as the last component (${e.getDescription})")
    }
    dir.split('/').filter(DirectoryGlob.hasWildcard).foreach { component =>
      try FileSystems.getDefault.getPathMatcher("glob:" + component)
      catch {
        case e: PatternSyntaxException =>
          fail(O.Path, raw, s"a valid glob in each directory component (${e.getDescription})")
      }
    }
    PathPattern(Paths.get(dir).normalize().toString, regex)
  }

  def zookeeperSecurity(): ZooKeeperSecurity = {
    val security = ZooKeeperSecurity(
      both(O.ZookeeperAuthUser)
        .map { case (user, password) => ZooKeeperAuth(user, password) },
      tls(),
      sasl()
    )
    val secured = security.tls.nonEmpty || security.sasl.nonEmpty
    if (secured && get(O.ZookeeperAddress).isEmpty) {
      val set = O.All.find(s => s.key.matches("zookeeper[.](ssl|sasl)[.].*") && get(s).nonEmpty)
      throw new IllegalArgumentException(
        s"Option '${set.get.key}' applies to an external ZooKeeper, and the embedded one " +
          s"is used: set '${O.ZookeeperAddress.key}' too, or remove it.")
    }
    security
  }

  private def tls(): Option[ZooKeeperTls] = {
    def store(which: String): Option[StoreFile] = {
      def part(name: String) = O.All.find(_.key == s"$which.$name").get
      val (location, password, kind) = (part("location"), part("password"), part("type"))
      if (get(location).isEmpty) {
        Seq(password, kind).find(get(_).nonEmpty).foreach { extra =>
          throw new IllegalArgumentException(
            s"Option '${extra.key}' is set but '${location.key}' is not: set the file too, " +
              "or remove it.")
        }
      }
      get(location).map(StoreFile(which, _, get(password), optional(kind)))
    }
    val stores = (store("zookeeper.ssl.keystore"), store("zookeeper.ssl.truststore"))
    val stated = optional(O.ZookeeperSslEnabled).map(_.toBoolean)
    if (stated.contains(false) && (stores._1 ++ stores._2).nonEmpty) {
      throw new IllegalArgumentException(
        s"Option '${O.ZookeeperSslEnabled.key}' is false but a key or trust store is set: " +
          "remove the stores, or the option (a store turns TLS on).")
    }
    if (stated.contains(true) || (stores._1 ++ stores._2).nonEmpty) {
      Some(ZooKeeperTls(stores._1, stores._2, boolean(O.ZookeeperSslHostnameVerification)))
    } else None
  }

  private def sasl(): Option[ZooKeeperSasl] = {
    val ways = Seq(
      optional(O.ZookeeperSaslSection).map(ZooKeeperSasl.Section),
      both(O.ZookeeperSaslUser)
        .map { case (user, password) => ZooKeeperSasl.Digest(user, password) },
      both(O.ZookeeperSaslKerberosPrincipal)
        .map { case (principal, keytab) => ZooKeeperSasl.Kerberos(principal, keytab) }
    ).flatten
    if (ways.size > 1) {
      throw new IllegalArgumentException(
        s"Options '${ways(0).options.head}' and '${ways(1).options.head}' are both set: " +
          "set one way to log in with SASL.")
    }
    ways.headOption
  }

  /** `first` and its pair (`OptionSpec.pair`), set together or not at all, each then checked. */
  private def both(first: OptionSpec): Option[(String, String)] = {
    val (pairedWith, what) = first.pair.get
    val second = O.All.find(_.key == pairedWith).get
    (get(first), get(second)) match {
      case (None, None) => None
      case (Some(a), Some(b)) => Some(checked(first, a) -> checked(second, b))
      case (a, _) =>
        val (given, missing) = if (a.isDefined) (first, second) else (second, first)
        throw new IllegalArgumentException(
          O.message("pair", "given" -> given.key, "missing" -> missing.key, "what" -> what))
    }
  }

  /**
   * @param limit the smallest byte limit of a batch, if any: a node looks for record ends a
   *              few times that far ahead, not through a whole backlog at every trigger
   */
  def grouping(lineLengthMax: Int, limit: Option[Long]): Option[RecordRule] = {
    val format = LineFormat.named(value(O.Format)).get
    // Not trimmed: a regex's spaces are part of it.
    def regex(spec: OptionSpec) = raw(spec).map(checked(spec, _))
    val rule = (regex(O.MultilineStart), regex(O.MultilineContinuation)) match {
      case (Some(_), Some(_)) =>
        throw new IllegalArgumentException(
          s"Options '${O.MultilineStart.key}' and '${O.MultilineContinuation.key}' are both " +
            "set: set one, the regex of a record's first lines or of its continuation lines.")
      case (start, continuation) => start.map(_ -> true).orElse(continuation.map(_ -> false))
    }
    val tuning = Seq(O.MultilineBytesMax, O.MultilineFlushTimeout)
      .filter(get(_).nonEmpty)
      .filterNot(_ == O.MultilineFlushTimeout && format.byRuntime)
    if (rule.isEmpty && tuning.nonEmpty) {
      throw new IllegalArgumentException(
        s"Option '${tuning.head.key}' applies to multi-line records only: set " +
          s"'${O.MultilineStart.key}' or '${O.MultilineContinuation.key}' too, or remove it.")
    }
    Some(
      RecordRule(
        rule.map(_._1),
        rule.forall(_._2),
        int(O.MultilineBytesMax),
        long(O.MultilineFlushTimeout),
        lineLengthMax,
        limit.filter(_ < Long.MaxValue / 4).map(_ * 4),
        format)).filter(r => r.multiline || format.byRuntime)
  }

  /**
   * `header.lines`, for a file of text lines, one a row: a runtime's chunks and multi-line
   * records would start where the header ends, which a node and a reader would each have to find.
   */
  def header(grouping: Option[RecordRule]): Option[FileHeader] =
    raw(O.HeaderLines).map(checked(O.HeaderLines, _)).map { regex =>
      grouping.foreach { r =>
        val other =
          if (r.format.byRuntime) s"'${O.Format.key}' ${r.format.name}" else "multi-line records"
        throw new IllegalArgumentException(
          s"Option '${O.HeaderLines.key}' reads a header from text lines, one a row; it " +
            s"cannot be used with $other: remove one of them.")
      }
      FileHeader(regex)
    }

  /**
   * `encoding` and `line.separator`. A runtime's lines are UTF-8 and end in `\n`, as the kubelet
   * reads them, so neither applies with a runtime's `format`.
   */
  def ending(grouping: Option[RecordRule]): LineEnding = {
    val encoding = value(O.Encoding)
    val charset =
      try Charset.forName(encoding)
      catch {
        case _: IllegalCharsetNameException | _: UnsupportedCharsetException =>
          fail(O.Encoding, encoding, OptionReader.Charsets)
      }
    // Not trimmed: a space or `\r` may be the separator.
    val separator = raw(O.LineSeparator).map(checked(O.LineSeparator, _))
    val ending = LineEnding(charset.name, separator)
    try ending.overlapsItself
    catch {
      case _: CharacterCodingException | _: UnsupportedOperationException =>
        val what = separator.fold(s"'${O.Encoding.key}'")(_ => s"'${O.LineSeparator.key}'")
        throw new IllegalArgumentException(
          s"Option $what: ${charset.name} cannot write " +
            separator.fold("a newline")(s => s"'$s'") + "; choose another " +
            separator.fold(s"charset (${OptionReader.Charsets})")(_ => "separator") + ".")
    }
    if (ending.overlapsItself) {
      fail(
        O.LineSeparator,
        separator.get,
        "a separator that cannot overlap itself ('--' can: '---' would end a line at either " +
          "'-'), such as \\r, NUL (U+0000) or |;"
      )
    }
    grouping.filter(_.format.byRuntime && !ending.isDefault).foreach { r =>
      val set = Seq(O.Encoding, O.LineSeparator).filter(get(_).nonEmpty).map(s => s"'${s.key}'")
      throw new IllegalArgumentException(
        s"Option '${O.Format.key}' ${r.format.name} reads a container runtime's lines, which are " +
          s"UTF-8 and end in \\n: remove ${set.mkString(" and ")}.")
    }
    ending
  }

  /**
   * `cleanup`, `cleanup.archive.dir` and `cleanup.after`. An archive a path with wildcards in
   * its directories could reach is refused: what is moved there would be read again.
   */
  def cleanup(paths: Seq[PathPattern]): Option[Cleanup] = {
    val dir = optional(O.CleanupArchiveDir)
    val tuning = Seq(O.CleanupAfter, O.CleanupArchiveDir).filter(get(_).nonEmpty)
    value(O.Cleanup) match {
      case "none" =>
        tuning.headOption.foreach { t =>
          throw new IllegalArgumentException(
            s"Option '${t.key}' applies with '${O.Cleanup.key}' = delete or archive only: set " +
              s"'${O.Cleanup.key}' too, or remove it.")
        }
        None
      case mode =>
        if (mode == "archive" && dir.isEmpty) {
          throw new IllegalArgumentException(
            s"Option '${O.Cleanup.key}' = archive moves files into '${O.CleanupArchiveDir.key}': " +
              "set it to a directory on each node, such as /var/log/archive.")
        }
        if (mode == "delete" && dir.nonEmpty) {
          throw new IllegalArgumentException(
            s"Option '${O.CleanupArchiveDir.key}' applies with '${O.Cleanup.key}' = archive: " +
              "remove it, or archive.")
        }
        dir.foreach { d =>
          val archive = Paths.get(d).normalize
          paths.find(p => reaches(p, archive)).foreach { p =>
            fail(
              O.CleanupArchiveDir,
              d,
              s"a directory path '$p' cannot list (files moved there would be read again)")
          }
        }
        Some(Cleanup(dir.map(Paths.get(_).normalize.toString), long(O.CleanupAfter)))
    }
  }

  /** Whether the directories of `path` (with wildcards in them) may hold what is under `dir`. */
  private def reaches(path: PathPattern, dir: java.nio.file.Path): Boolean = {
    val parts = path.directory.split('/').filter(_.nonEmpty)
    val fixed = parts.takeWhile(!DirectoryGlob.hasWildcard(_))
    fixed.length < parts.length && dir.startsWith(Paths.get("/", fixed: _*))
  }

  /** `path.columns`, its named groups rewritten ([[PathColumns]]). */
  def pathColumns(): Option[PathColumns] = get(O.PathColumns).filter(_.nonEmpty).map { raw =>
    try PathColumns(raw)
    catch {
      case e: IllegalArgumentException =>
        fail(O.PathColumns, raw, s"a Java regex with named groups, (?<name>...): ${e.getMessage}")
    }
  }

  /**
   * `nodes`: a JSON array of names, or the cluster manager to ask. A single name is refused,
   * so that a misspelt manager (`yran`) is not taken for a node.
   */
  def nodes(nodeNameEnv: Option[String]): Option[Nodes] = {
    val tuning = Seq(O.NodesSelector, O.NodesUrl, O.NodesRefreshInterval, O.NodesAwaitTimeout)
    def refuse(spec: OptionSpec, applies: String): Nothing =
      throw new IllegalArgumentException(s"Option '${spec.key}' applies $applies.")
    get(O.Nodes) match {
      case None =>
        tuning.find(get(_).nonEmpty).foreach { t =>
          refuse(t, s"with '${O.Nodes.key}' only: set '${O.Nodes.key}' too, or remove it")
        }
        None
      case Some(raw) if raw.startsWith("[") =>
        val names = O.Nodes.values(raw)
        if (names == Seq(raw)) fail(O.Nodes, raw, O.Nodes.expected.get)
        tuning.init.find(get(_).nonEmpty).foreach { t =>
          refuse(t, s"to nodes a cluster manager gives, not to a list of names: remove it")
        }
        Some(Nodes.Listed(names.map(n => checked(O.Nodes, n.trim)).toSet))
      case Some(raw) =>
        val manager =
          ClusterManager.named(raw).getOrElse(fail(O.Nodes, raw, O.Nodes.expected.get))
        val selector = optional(O.NodesSelector)
        val url = optional(O.NodesUrl)
        manager match {
          case ClusterManager.Standalone if selector.nonEmpty =>
            refuse(O.NodesSelector, s"to '${O.Nodes.key}' = yarn or kubernetes: remove it")
          case ClusterManager.Yarn if url.nonEmpty =>
            refuse(
              O.NodesUrl,
              s"to '${O.Nodes.key}' = standalone or kubernetes; YARN's ResourceManager is " +
                "found from the Hadoop configuration (yarn-site.xml): remove it"
            )
          case ClusterManager.Kubernetes if nodeNameEnv.isEmpty =>
            throw new IllegalArgumentException(
              s"Option '${O.Nodes.key}' = kubernetes names nodes as Kubernetes does, but " +
                "without 'node.name.env' each executor pod reads as a host of its own " +
                "address: set 'node.name.env' to a variable that the pod template sets from " +
                "spec.nodeName (see docs/deploying.md).")
          case _ => ()
        }
        Some(Nodes.Discovered(manager, selector, url, long(O.NodesRefreshInterval)))
    }
  }

  /** `batch.bytes.min`, and `batch.wait.max`, which only it uses. */
  def batchMinimum(): Option[BatchMinimum] = optional(O.BatchBytesMin).map(_.toLong) match {
    case None =>
      get(O.BatchWaitMax).foreach { _ =>
        throw new IllegalArgumentException(
          s"Option '${O.BatchWaitMax.key}' is how long a batch waits for " +
            s"'${O.BatchBytesMin.key}' new bytes, which is not set: set it too, or remove " +
            s"'${O.BatchWaitMax.key}'.")
      }
      None
    case Some(min) => Some(BatchMinimum(min, long(O.BatchWaitMax)))
  }

  def startingOffsets(): StartingOffsets = value(O.StartingOffsets) match {
    case "latest" => StartingOffsets.Latest
    case _ => StartingOffsets.Earliest
  }

  /** A value given, checked against its spec, in its normal form (`True` reads `true`). */
  def optional(spec: OptionSpec): Option[String] = get(spec).map(checked(spec, _))

  def long(spec: OptionSpec): Long = value(spec).toLong
  def int(spec: OptionSpec): Int = value(spec).toInt
  def boolean(spec: OptionSpec): Boolean = value(spec).toBoolean

  /** The value given or the default, checked. */
  def value(spec: OptionSpec): String = checked(spec, get(spec).getOrElse(spec.default))

  private def checked(spec: OptionSpec, raw: String): String =
    spec.check(raw).fold(fail(spec, raw, _), _.toString)
}

private object OptionReader {
  val Charsets: String =
    "a charset the JVM supports, such as UTF-8, UTF-16LE, UTF-16 (by the byte order mark), " +
      "ISO-8859-1, windows-1252, Shift_JIS or GB18030"
}
