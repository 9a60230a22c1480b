package com.hx.spark.sql.connector.aof.offset

/**
 * What changed on one host since a snapshot: its next serial, the files that are new or moved on
 * (whole), the ids of those gone, and its retired files (whole: they are few, and short-lived).
 */
final case class HostChanges(
    nextSerial: Long,
    files: Map[String, FileOffset],
    gone: Seq[String],
    retired: Map[String, RetiredFile] = Map.empty)

/** The difference between a snapshot's hosts and an offset's, and the offset rebuilt from it. */
object OffsetChanges {

  /** The hosts that changed, and those gone; hosts alike in both are left out. */
  def between(
      base: Map[String, HostOffsets],
      now: Map[String, HostOffsets]): (Map[String, HostChanges], Seq[String]) =
    since(base, Map.empty, Map.empty, now)

  /**
   * [[between]] `base` and `now`, given `prior`, the changes between `base` and `priorHosts`: a
   * host whose offsets a plan made from its prior ones is `prior`'s, with the files that plan
   * changed ([[HostOffsets.changedSince]]) looked at again, not every file; another is
   * compared in full.
   */
  def since(
      base: Map[String, HostOffsets],
      priorHosts: Map[String, HostOffsets],
      prior: Map[String, HostChanges],
      now: Map[String, HostOffsets]): (Map[String, HostChanges], Seq[String]) = {
    // A host planned since with nothing new keeps the very object: not looked into.
    val changed =
      now.filterNot { case (host, h) => base.get(host).exists(_ eq h) }.flatMap { case (host, h) =>
        val before = base.getOrElse(host, HostOffsets.Empty)
        // The ids a plan changed since the prior offsets, when it made these from them.
        val plan = priorHosts.get(host).flatMap { p =>
          if (p eq h) Some(Set.empty[String]) else h.changedSince(p)
        }
        val (files, gone) = plan match {
          case Some(ids) =>
            // Without a prior change, the prior offsets were the base's.
            val was = prior.get(host)
            val kept = was.fold(Map.empty[String, FileOffset])(_.files) -- ids
            val moved =
              ids.iterator.flatMap(id => h.files.get(id).map(id -> _)).filter { case (id, f) =>
                !before.files.get(id).contains(f)
              }
            val goneNow = was.fold(Seq.empty[String])(_.gone).filterNot(ids) ++
              ids.filter(id => before.files.contains(id) && !h.files.contains(id))
            (kept ++ moved, goneNow.sorted)
          case None => full(before, h)
        }
        val same = files.isEmpty && gone.isEmpty &&
          base.get(host).exists(b => b.nextSerial == h.nextSerial && b.retired == h.retired)
        if (same) None else Some(host -> HostChanges(h.nextSerial, files, gone, h.retired))
      }
    (changed, base.keys.filterNot(now.contains).toSeq.sorted)
  }

  private def full(before: HostOffsets, h: HostOffsets): (Map[String, FileOffset], Seq[String]) =
    (
      h.files.filter { case (id, f) => !before.files.get(id).contains(f) },
      before.files.keys.filterNot(h.files.contains).toSeq.sorted)

  def applied(
      base: Map[String, HostOffsets],
      changed: Map[String, HostChanges],
      goneHosts: Seq[String]): Map[String, HostOffsets] =
    base -- goneHosts ++ changed.map { case (host, c) =>
      val before = base.getOrElse(host, HostOffsets.Empty).files
      host -> HostOffsets(c.nextSerial, before -- c.gone ++ c.files, c.retired)
    }
}
