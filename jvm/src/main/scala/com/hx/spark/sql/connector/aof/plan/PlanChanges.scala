package com.hx.spark.sql.connector.aof.plan

import com.hx.spark.sql.connector.aof.offset.AofOffset

/**
 * What a plan decided about files it already tracked, in words for the log: files it stops
 * tracking, and files it reads again from the start as new content. Every such outcome is
 * worth a line, since each one is where duplicates or losses would come from.
 */
object PlanChanges {
  def between(start: AofOffset, end: AofOffset): Seq[String] =
    start.hosts.toSeq.sortBy(_._1).flatMap { case (host, before) =>
      val after = end.hosts.get(host).fold(Map.empty[String, Seq[String]]) { h =>
        h.files.values.groupBy(f => s"${f.key.dev}:${f.key.ino}").map { case (k, fs) =>
          k -> fs.map(_.fileId).toSeq
        }
      }
      val kept = end.hosts.get(host).fold(Set.empty[String])(_.files.keySet)
      before.files.values.toSeq.sortBy(_.fileId).collect {
        case f if !kept.contains(f.fileId) =>
          val key = s"${f.key.dev}:${f.key.ino}"
          after.get(key) match {
            case Some(ids) =>
              s"$host:${f.path} ($key) holds new content: file ${f.fileId} read up to ${f.pos}, " +
                s"now read as ${ids.mkString(", ")} from its start"
            case None => s"$host:${f.path} (file ${f.fileId}, read up to ${f.pos}) is gone"
          }
      }
    }
}
