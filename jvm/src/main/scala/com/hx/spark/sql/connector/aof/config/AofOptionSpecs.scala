package com.hx.spark.sql.connector.aof.config

/** The source's options: names, defaults and one line of documentation each. */
object AofOptionSpecs {
  val Path: OptionSpec = OptionSpec(
    "path",
    "(required)",
    "Absolute path; the last component is a Java regex on file names in the (literal) directory.")
  val ZookeeperAddress: OptionSpec = OptionSpec(
    "zookeeper.address",
    "(embedded)",
    "ZooKeeper connect string; when absent the driver starts an in-process ZooKeeper server.")
  val ZookeeperSessionTimeout: OptionSpec = OptionSpec(
    "zookeeper.session.timeout",
    "30000",
    "Milliseconds before ZooKeeper ends a silent client's session; a dead endpoint is replaced then.")
  val ZookeeperAuthUser: OptionSpec = OptionSpec(
    "zookeeper.auth.user",
    "(none)",
    "ZooKeeper digest user; with it the source's znodes get ACLs that only this user passes.")
  val ZookeeperAuthPassword: OptionSpec = OptionSpec(
    "zookeeper.auth.password",
    "(none)",
    "Password of `zookeeper.auth.user`; Spark redacts options named like this in its UI and logs.")
  val StartingOffsets: OptionSpec = OptionSpec(
    "starting.offsets",
    "earliest",
    "Where a file first seen by a new query starts: `earliest` (byte 0) or `latest` (its end).")
  val BytesMax: OptionSpec = OptionSpec(
    "bytes.max",
    "(unlimited)",
    "Most bytes read from one file in one micro-batch (ignored by `Trigger.Once`).")
  val MetaStore: OptionSpec = OptionSpec(
    "meta.store",
    "/aof/<directory>",
    "ZooKeeper root of this source's endpoints, requests and offset backup.")
  val MetaAwaitTimeout: OptionSpec = OptionSpec(
    "meta.await.timeout",
    "3000",
    "Milliseconds the driver waits for a node's file metadata before planning without it.")
  val Md5CheckEnabled: OptionSpec = OptionSpec(
    "md5.check.enabled",
    "true",
    "Verify each tracked file's content fingerprint; a mismatch means it was replaced.")
  val Md5SampleLength: OptionSpec = OptionSpec(
    "md5.sample.length",
    "1024",
    "Bytes at the start of a file hashed for its fingerprint.")
  val PartitionBytesMax: OptionSpec = OptionSpec(
    "partition.bytes.max",
    "134217728",
    "Most bytes of one file read by one task; longer ranges are split into tasks on the same host.")
  val LineLengthMax: OptionSpec = OptionSpec(
    "line.length.max",
    "1048576",
    "Longest line in bytes; a longer line is emitted cut to this length and the rest is skipped.")

  val FailOnDataLoss: OptionSpec = OptionSpec(
    "fail.on.data.loss",
    "false",
    "Fail the query when bytes go unread (deleted, truncated, replaced first); else log, count.")

  val All: Seq[OptionSpec] = Seq(
    Path,
    ZookeeperAddress,
    ZookeeperSessionTimeout,
    ZookeeperAuthUser,
    ZookeeperAuthPassword,
    StartingOffsets,
    BytesMax,
    MetaStore,
    MetaAwaitTimeout,
    Md5CheckEnabled,
    Md5SampleLength,
    PartitionBytesMax,
    LineLengthMax,
    FailOnDataLoss
  )

  /** The options table in Markdown, as it appears in the README. */
  def markdownTable: String = {
    val header = "| option | default | meaning |\n| --- | --- | --- |\n"
    header + All.map(o => s"| `${o.key}` | `${o.default}` | ${o.doc} |").mkString("\n") + "\n"
  }
}
