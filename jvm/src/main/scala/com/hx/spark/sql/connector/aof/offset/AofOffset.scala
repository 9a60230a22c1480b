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

  // The offset on the same base these hosts were planned from, until `changes` is made: its
  // changes are where this one's start ([[OffsetChanges.since]]).
  @transient @volatile private var prior: AofOffset = _
  @transient @volatile private var changesMade = false

  /** What changed since `base`: the hosts that changed, and those gone (none without a base). */
  lazy val changes: (Map[String, HostChanges], Seq[String]) = {
    val made = base.fold((Map.empty[String, HostChanges], Seq.empty[String])) { b =>
      Option(prior).filter(p => p.changesMade && p.base.exists(_ eq b)) match {
        case Some(p) => OffsetChanges.since(b.hosts, p.hosts, p.changes._1, hosts)
        case None => OffsetChanges.between(b.hosts, hosts)
      }
    }
    prior = null
    changesMade = true
    made
  }

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

  /**
   * Whether the two hold the same offsets. A host's offsets a plan made from the other's differ
   * from them (a plan that changes nothing keeps the very offsets): only others are compared,
   * file by file.
   */
  def sameHosts(a: Map[String, HostOffsets], b: Map[String, HostOffsets]): Boolean =
    (a eq b) || a.size == b.size && a.forall { case (host, x) =>
      b.get(host).exists { y =>
        (x eq y) || x.changedSince(y).isEmpty && y.changedSince(x).isEmpty && x == y
      }
    }

  /** `hosts`, planned from `start`, on `start`'s base: its changes are found from `start`'s. */
  def onBaseOf(
      start: AofOffset,
      hosts: Map[String, HostOffsets],
      plannedAtMs: Option[Long]): AofOffset = {
    val offset = AofOffset(hosts, start.base, plannedAtMs)
    offset.prior = start
    offset
  }

  /** An offset written whole (the backup, a snapshot, a checkpoint of an older version). */
  def fromJson(json: String): AofOffset = OffsetJson.read(json, OffsetJson.NoSnapshots)
}

/** Offsets written whole, once, under the name `id`. */
final class OffsetSnapshot(val id: String, val hosts: Map[String, HostOffsets])
