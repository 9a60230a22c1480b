package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.config.StartingOffsets
import com.hx.spark.sql.connector.aof.files.{FileMeta, Fingerprint, KnownFile}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}

/**
 * Decides where the next micro-batch ends: a pure function of the start offset, what the nodes
 * reported and the limits. The rules are the original connector's C1..C4:
 *
 *  - C1 (the file is tracked) and C3 (its fingerprint still agrees) and C4 (it is at least as
 *    long as the tracked position): read on, up to its last complete line and `bytes.max`.
 *  - C1 and C3 and !C4 (cut back but same head): continue at its current length.
 *  - C1 and !C3 (replaced or truncated): a new file for this query, read from byte 0.
 *  - !C1 on a host this query has offsets for: created since, read from byte 0.
 *  - !C1 on a host seen for the first time: `starting.offsets`.
 *
 * A host missing from `reports` did not answer in time and keeps its offsets unchanged.
 */
object Planner {

  /** What the driver tells a node about the files of it that `start` tracks. */
  def known(start: AofOffset, host: String): Seq[KnownFile] =
    start.hosts.get(host).toSeq.flatMap(_.files.values).sortBy(_.fileId).map { f =>
      KnownFile(f.key, f.pos, f.fingerprint)
    }

  def plan(start: AofOffset, reports: Map[String, Seq[FileMeta]], limits: PlanLimits): AofOffset =
    AofOffset(start.hosts ++ reports.map { case (host, files) =>
      host -> planHost(start.hosts.get(host), files, limits)
    })

  private def planHost(
      previous: Option[HostOffsets],
      files: Seq[FileMeta],
      limits: PlanLimits): HostOffsets = {
    val tracked = previous.toSeq.flatMap(_.files.values).map(f => f.key -> f).toMap
    var nextSerial = previous.map(_.nextSerial).getOrElse(0L)
    def fresh(meta: FileMeta, first: Long): FileOffset = {
      val serial = nextSerial
      nextSerial += 1
      FileOffset(meta.path, meta.key, serial, first, advance(first, meta, limits), meta.fingerprint)
    }
    val planned = files.map { meta =>
      tracked.get(meta.key) match {
        case Some(f) if limits.md5CheckEnabled && !sameHead(f.fingerprint, meta) => fresh(meta, 0L)
        case Some(f) if f.pos > meta.size =>
          f.copy(path = meta.path, pos = meta.size, fingerprint = meta.fingerprint)
        case Some(f) =>
          f.copy(
            path = meta.path,
            pos = advance(f.pos, meta, limits),
            fingerprint = meta.fingerprint)
        case None if previous.isEmpty && limits.startingOffsets == StartingOffsets.Latest =>
          fresh(meta, meta.lineEnd)
        case None => fresh(meta, 0L)
      }
    }
    HostOffsets(nextSerial, planned.map(f => f.fileId -> f).toMap)
  }

  /** Whether the file still starts with the bytes the offset was planned against. */
  private def sameHead(seen: Fingerprint, meta: FileMeta): Boolean =
    if (seen.length == meta.fingerprint.length) seen == meta.fingerprint
    else meta.probe.contains(seen)

  private def advance(from: Long, meta: FileMeta, limits: PlanLimits): Long = {
    val cap = limits.bytesMax.fold(meta.lineEnd) { max =>
      if (max > Long.MaxValue - from) meta.lineEnd else math.min(meta.lineEnd, from + max)
    }
    math.max(from, cap)
  }
}
