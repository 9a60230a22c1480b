package com.hx.spark.sql.connector.aof.config

import scala.collection.JavaConverters._
import scala.util.matching.Regex

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * The source's options: names, types, ranges, defaults and one line of documentation each, read
 * from `options.json` beside this class, with the units of a duration and the words of every
 * message about a value. The Python package reads the same file (from this JAR) to check its
 * typed options, and the README's table is generated from it: one list, no drift.
 */
object AofOptionSpecs {
  private val Root: JsonNode = {
    val in = getClass.getResourceAsStream("options.json")
    try new ObjectMapper().readTree(in)
    finally in.close()
  }

  /** Milliseconds per unit of a duration, in the order the messages name them. */
  val Units: Seq[(String, Long)] =
    Root.path("units").fields().asScala.map(e => e.getKey -> e.getValue.asLong).toVector

  private val Messages: Map[String, String] =
    Root.path("messages").fields().asScala.map(e => e.getKey -> e.getValue.asText).toMap

  private val Placeholder: Regex = """\{(\w+)\}""".r

  /** The message `name` of options.json, each `{placeholder}` filled in one pass. */
  def message(name: String, fills: (String, Any)*): String = {
    val values = fills.toMap
    Placeholder.replaceAllIn(
      Messages(name),
      m => Regex.quoteReplacement(values(m.group(1)).toString))
  }

  val All: Seq[OptionSpec] = Root.path("options").elements().asScala.toVector.map { n =>
    def text(field: String) = Option(n.get(field)).map(_.asText)
    OptionSpec(
      key = n.path("key").asText,
      kind = n.path("type").asText,
      default = n.path("default").asText,
      doc = n.path("doc").asText,
      min = Option(n.get("min")).map(_.asLong),
      choices = n.path("choices").elements().asScala.map(_.asText).toVector,
      pattern = text("pattern"),
      expected = text("expected"),
      many = n.path("many").asBoolean(false),
      pair = Option(n.get("pair")).map(p => p.get(0).asText -> p.get(1).asText)
    )
  }

  private def spec(key: String): OptionSpec =
    All.find(_.key == key).getOrElse(throw new IllegalStateException(s"options.json lacks $key"))

  val Path: OptionSpec = spec("path")
  val Exclude: OptionSpec = spec("exclude")
  val ZookeeperAddress: OptionSpec = spec("zookeeper.address")
  val ZookeeperSessionTimeout: OptionSpec = spec("zookeeper.session.timeout")
  val ZookeeperAuthUser: OptionSpec = spec("zookeeper.auth.user")
  val ZookeeperAuthPassword: OptionSpec = spec("zookeeper.auth.password")
  val ZookeeperSslEnabled: OptionSpec = spec("zookeeper.ssl.enabled")
  val ZookeeperSslHostnameVerification: OptionSpec = spec("zookeeper.ssl.hostname.verification")
  val ZookeeperSaslSection: OptionSpec = spec("zookeeper.sasl.section")
  val ZookeeperSaslUser: OptionSpec = spec("zookeeper.sasl.user")
  val ZookeeperSaslPassword: OptionSpec = spec("zookeeper.sasl.password")
  val ZookeeperSaslKerberosPrincipal: OptionSpec = spec("zookeeper.sasl.kerberos.principal")
  val ZookeeperSaslKerberosKeytab: OptionSpec = spec("zookeeper.sasl.kerberos.keytab")
  val StartingOffsets: OptionSpec = spec("starting.offsets")
  val IgnoreOlder: OptionSpec = spec("ignore.older")
  val BytesMax: OptionSpec = spec("bytes.max")
  val BatchBytesMax: OptionSpec = spec("batch.bytes.max")
  val BatchBytesMin: OptionSpec = spec("batch.bytes.min")
  val BatchWaitMax: OptionSpec = spec("batch.wait.max")
  val NodeNameEnv: OptionSpec = spec("node.name.env")
  val Nodes: OptionSpec = spec("nodes")
  val NodesSelector: OptionSpec = spec("nodes.selector")
  val NodesUrl: OptionSpec = spec("nodes.url")
  val NodesRefreshInterval: OptionSpec = spec("nodes.refresh.interval")
  val NodesAwaitTimeout: OptionSpec = spec("nodes.await.timeout")
  val MetaStore: OptionSpec = spec("meta.store")
  val ResumeFromBackup: OptionSpec = spec("resume.from.backup")
  val MetaAwaitTimeout: OptionSpec = spec("meta.await.timeout")
  val StartAwaitTimeout: OptionSpec = spec("start.await.timeout")
  val Md5CheckEnabled: OptionSpec = spec("md5.check.enabled")
  val Md5SampleLength: OptionSpec = spec("md5.sample.length")
  val PartitionBytesMax: OptionSpec = spec("partition.bytes.max")
  val Format: OptionSpec = spec("format")
  val PathColumns: OptionSpec = spec("path.columns")
  val Encoding: OptionSpec = spec("encoding")
  val LineSeparator: OptionSpec = spec("line.separator")
  val HeaderLines: OptionSpec = spec("header.lines")
  val LineLengthMax: OptionSpec = spec("line.length.max")
  val MultilineStart: OptionSpec = spec("multiline.start")
  val MultilineContinuation: OptionSpec = spec("multiline.continuation")
  val MultilineBytesMax: OptionSpec = spec("multiline.bytes.max")
  val MultilineFlushTimeout: OptionSpec = spec("multiline.flush.timeout")
  val JournalUnits: OptionSpec = spec("journal.units")
  val JournalIdentifiers: OptionSpec = spec("journal.identifiers")
  val JournalPriority: OptionSpec = spec("journal.priority")
  val IncludeLines: OptionSpec = spec("include.lines")
  val ExcludeLines: OptionSpec = spec("exclude.lines")
  val Cleanup: OptionSpec = spec("cleanup")
  val CleanupArchiveDir: OptionSpec = spec("cleanup.archive.dir")
  val CleanupAfter: OptionSpec = spec("cleanup.after")
  val FailOnDataLoss: OptionSpec = spec("fail.on.data.loss")
}
