package com.hx.spark.sql.connector.aof.config

import java.util.Locale

import com.hx.spark.sql.connector.aof.config.{AofOptionSpecs => O}
import com.hx.spark.sql.connector.aof.files.cleanup.Cleanup
import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.files.records.BatchCuts

/**
 * The source's settings, parsed and checked once when the query is defined.
 *
 * @param files        the files read: each `path` (its directory part, which may hold
 *                     wildcards, and its file-name regex), less those `exclude` leaves out
 * @param nodeNameEnv  the environment variable naming an executor's node, if nodes are not hosts
 * @param nodes        the nodes that must be read (`nodes`), if stated
 * @param nodesAwaitTimeoutMs how long `AvailableNow` and `Once` wait for an unread one of them
 * @param ignoreOlderMs how long a file first seen must have gone unmodified to be followed from
 *                     its end rather than read (`ignore.older`)
 * @param read         how the files become rows, on the nodes and in the read tasks alike
 * @param cleanup      what becomes of a file read to its end and committed (`cleanup`)
 * @param resumeFromBackup whether a new checkpoint starts from the offset backup in `metaStore`
 * @param batchMinimum the fewest new bytes worth a micro-batch, and how long a batch waits for
 *                     them (`batch.bytes.min`, `batch.wait.max`)
 */
final case class AofOptions(
    files: SourceFiles,
    zookeeperAddress: Option[String],
    zookeeperSessionTimeoutMs: Int,
    zookeeperSecurity: ZooKeeperSecurity,
    startingOffsets: StartingOffsets,
    ignoreOlderMs: Option[Long],
    bytesMax: Option[Long],
    batchBytesMax: Option[Long],
    nodeNameEnv: Option[String],
    metaStore: String,
    metaAwaitTimeoutMs: Long,
    startAwaitTimeoutMs: Long,
    md5SampleLength: Int,
    partitionBytesMax: Long,
    failOnDataLoss: Boolean,
    read: ReadSettings,
    cleanup: Option[Cleanup] = None,
    nodes: Option[Nodes] = None,
    nodesAwaitTimeoutMs: Long = 300000L,
    resumeFromBackup: Boolean = false,
    batchMinimum: Option[BatchMinimum] = None) {

  /** Where a node may end a batch early: reported only when a byte limit bounds batches. */
  def batchCuts: Option[BatchCuts] =
    Some((bytesMax ++ batchBytesMax).toSeq).filter(_.nonEmpty).map(BatchCuts(_))
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
    UnknownOptions.warn(merged.keySet)
    read(new OptionReader(merged))
  }

  /** The options as `reader` gives them, each key asked of it once at least. */
  private[config] def read(reader: OptionReader): AofOptions = {
    val lineFilter = LineFilter.of(reader.many(O.IncludeLines), reader.many(O.ExcludeLines))
    val journal = JournalOptions.read(reader, lineFilter)
    val paths = reader.paths(if (journal.nonEmpty) JournalOptions.DefaultPaths else Nil)
    val bytesMax = reader.optional(O.BytesMax).map(_.toLong)
    val batchBytesMax = reader.optional(O.BatchBytesMax).map(_.toLong)
    val lineLengthMax = reader.int(O.LineLengthMax)
    val nodeNameEnv = reader.optional(O.NodeNameEnv)
    val grouping =
      if (journal.nonEmpty) None
      else reader.grouping(lineLengthMax, (bytesMax ++ batchBytesMax).reduceOption(_ min _))
    val zookeeperAddress = reader.optional(O.ZookeeperAddress)
    val zookeeperSecurity = reader.zookeeperSecurity()
    val resumeFromBackup = reader.boolean(O.ResumeFromBackup)
    // An open store's backup could be anyone's: it would skip lines and remove files.
    if (resumeFromBackup && zookeeperAddress.nonEmpty && !zookeeperSecurity.authenticated) {
      reader.fail(
        O.ResumeFromBackup,
        "true",
        "it only with a ZooKeeper login, whose ACLs let no one else write the offset backup: " +
          "set 'zookeeper.auth.user' and 'zookeeper.auth.password' (or a SASL login) on this " +
          "query and on the one that wrote the backup (docs/security.md)"
      )
    }
    AofOptions(
      files = SourceFiles(paths, reader.many(O.Exclude)),
      zookeeperAddress = zookeeperAddress,
      zookeeperSessionTimeoutMs = reader.int(O.ZookeeperSessionTimeout),
      zookeeperSecurity = zookeeperSecurity,
      startingOffsets = reader.startingOffsets(),
      ignoreOlderMs = reader.optional(O.IgnoreOlder).map(_.toLong),
      bytesMax = bytesMax,
      batchBytesMax = batchBytesMax,
      nodeNameEnv = nodeNameEnv,
      metaStore = reader.optional(O.MetaStore).getOrElse(defaultMetaStore(paths.head.directory)),
      metaAwaitTimeoutMs = reader.long(O.MetaAwaitTimeout),
      startAwaitTimeoutMs = reader.long(O.StartAwaitTimeout),
      md5SampleLength = reader.int(O.Md5SampleLength),
      partitionBytesMax = reader.long(O.PartitionBytesMax),
      failOnDataLoss = reader.boolean(O.FailOnDataLoss),
      read = ReadSettings(
        identity = FileIdentity(checked = reader.boolean(O.Md5CheckEnabled)),
        lineLengthMax = lineLengthMax,
        grouping = grouping,
        lineFilter = lineFilter.filter(_ => journal.isEmpty),
        pathColumns = reader.pathColumns(),
        header = reader.header(grouping),
        ending = reader.ending(grouping),
        journal = journal
      ),
      cleanup = reader.cleanup(paths),
      nodes = reader.nodes(nodeNameEnv),
      nodesAwaitTimeoutMs = reader.long(O.NodesAwaitTimeout),
      resumeFromBackup = resumeFromBackup,
      batchMinimum = reader.batchMinimum()
    )
  }

  private def defaultMetaStore(directory: String): String =
    "/aof" + (if (directory == "/") "" else directory)
}
