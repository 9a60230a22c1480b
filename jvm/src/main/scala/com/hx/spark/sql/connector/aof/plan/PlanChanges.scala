package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset}

/**
 * What a plan decided about files it already tracked, in words for the log: files it stops
 * tracking, and files it reads again from the start as new content. Every such outcome is
 * worth a line, since each one is where duplicates or losses would come from.
 */
object PlanChanges {
  def between(start: AofOffset, end: AofOffset): Seq[String] =
    start.hosts.toSeq.filterNot(h => end.hosts.get(h._1).exists(_ eq h._2)).sortBy(_._1).flatMap {
      case (host, before) =>
        val now = end.hosts.get(host)
        val kept = now.fold(Map.empty[String, FileOffset])(_.files)
        val retired = now.fold(Set.empty[String])(_.retired.keySet)
        // Of the files a plan changed, when it made `end`'s offsets from `start`'s.
        val candidates = now.flatMap(_.changedSince(before)) match {
          case Some(ids) => ids.toSeq.flatMap(before.files.get)
          case None => before.files.values.toSeq
        }
        candidates.filterNot(f => kept.contains(f.fileId)).sortBy(_.fileId).map { f =>
          val remembered =
            if (retired(f.fileId)) "; remembered until a look finds no copy of it" else ""
          now.flatMap(_.ofKey(f.key)) match {
            case Some(other) =>
              s"$host:${f.path} (${key(f)}) holds new content: file ${f.fileId} read up to " +
                s"${f.pos}, now read as ${other.fileId} from its start$remembered"
            case None =>
              s"$host:${f.path} (file ${f.fileId}, read up to ${f.pos}) is gone$remembered"
          }
        }
    }

  private def key(f: FileOffset): String = s"${f.key.dev}:${f.key.ino}"
}
