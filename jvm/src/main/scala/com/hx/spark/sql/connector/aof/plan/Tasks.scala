package com.hx.spark.sql.connector.aof.plan

/**
 * Packs a batch's ranges into tasks, as Spark packs small files: each task reads ranges of one
 * host, together at most `bytesMax` bytes where each range also counts `openCost` (opening and
 * looking up a file is not free). Ten thousand files with a line each are then a few tasks, not
 * ten thousand. Longest ranges first, so that the big ones do not each leave a task half empty.
 */
object Tasks {
  def pack(ranges: Seq[FileRange], bytesMax: Long, openCost: Long): Seq[Seq[FileRange]] =
    ranges.groupBy(_.host).toSeq.sortBy(_._1).flatMap { case (_, onHost) =>
      val tasks = Seq.newBuilder[Seq[FileRange]]
      var task = Vector.empty[FileRange]
      var size = 0L
      onHost.sortBy(r => -(r.until - r.from)).foreach { r =>
        val length = r.until - r.from
        if (task.nonEmpty && size + length > bytesMax) {
          tasks += task
          task = Vector.empty
          size = 0L
        }
        task :+= r
        size += length + openCost
      }
      if (task.nonEmpty) tasks += task
      tasks.result()
    }
}
