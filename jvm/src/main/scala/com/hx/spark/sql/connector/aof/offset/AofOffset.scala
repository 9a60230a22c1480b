package com.hx.spark.sql.connector.aof.offset

import org.apache.spark.sql.connector.read.streaming.{Offset => StreamOffset}

/**
 * The source's offset: every host's files. Spark keeps it, as JSON, in the checkpoint at every
 * batch; on a `base` snapshot that JSON holds only what changed since (see [[OffsetSnapshots]]).
 * Equal offsets are equal JSON (Spark's `Offset.equals`), so the same files on another base are
 * another offset.
 *
 * @param plannedAtMs when the trigger that planned it ran (epoch milliseconds): the `timestamp`
 *                    of the lines of the batch it ends, kept so that a replay gives the same
 */
final case class AofOffset(
    hosts: Map[String, HostOffsets],
    base: Option[OffsetSnapshot] = None,
    plannedAtMs: Option[Long] = None)
    extends StreamOffset {
  // Spark asks for it more than once per batch (and parses it back); with thousands of files
  // it is megabytes of JSON.
  private lazy val written = OffsetJson.write(this)
  override def json(): String = written

  /** What changed since `base`: the hosts that changed, and those gone (none without a base). */
  lazy val changes: (Map[String, HostChanges], Seq[String]) =
    base.fold((Map.empty[String, HostChanges], Seq.empty[String]))(b =>
      OffsetChanges.between(b.hosts, hosts))

  /** How many files its JSON writes on `base`: those changed, and those of every gone host. */
  lazy val changedFiles: Long = {
    val (changed, goneHosts) = changes
    changed.values.map(c => c.files.size + c.gone.size).sum.toLong +
      goneHosts.flatMap(h => base.map(_.hosts(h).files.size)).sum
  }

  def file(host: String, fileId: String): Option[FileOffset] =
    hosts.get(host).flatMap(_.files.get(fileId))

  /** The same files, written whole: what the backup in ZooKeeper and a snapshot hold. */
  def whole: AofOffset = if (base.isEmpty) this else AofOffset(hosts)
}

object AofOffset {
  val Empty: AofOffset = AofOffset(Map.empty[String, HostOffsets])

  /** An offset written whole (the backup, a snapshot, a checkpoint of an older version). */
  def fromJson(json: String): AofOffset = OffsetJson.read(json, OffsetJson.NoSnapshots)
}

/** Offsets written whole, once, under the name `id`. */
final class OffsetSnapshot(val id: String, val hosts: Map[String, HostOffsets])
