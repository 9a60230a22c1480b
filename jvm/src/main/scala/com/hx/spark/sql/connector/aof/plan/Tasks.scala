package com.hx.spark.sql.connector.aof.plan

/**
 * Deals a batch's ranges out as tasks, host by host, each host's in the order given: a host's
 * tasks, read in turn, give its lines in the order [[Ranges]] puts them. A host never gets more
 * tasks than it has task slots: a task that waits for a slot on its own host past Spark's
 * locality wait is sent to another host, which cannot read its files. Within that bound a host's
 * bytes are cut into equal shares, so that its slots finish together, and no share is smaller
 * than `bytesMin` (unless the host has less than that to read): a trickle is one task, not one
 * per slot.
 *
 * With multi-line records a range is never cut: only its own start and end are known to be
 * record starts.
 *
 * Each range also weighs `openCost` bytes, as Spark's file sources count opening a file, so ten
 * thousand files of a line each are shared out like ten thousand files, not like a few bytes.
 */
object Tasks {

  /**
   * @param slots    the task slots of a host (at least one is assumed)
   * @param bytesMin the least a task is given before a host's reading is spread over more tasks
   * @param openCost what opening one range costs, in bytes
   * @param cuttable  whether a range may be cut between tasks (lines: yes; records: no)
   */
  def deal(
      ranges: Seq[FileRange],
      slots: String => Int,
      bytesMin: Long,
      openCost: Long,
      cuttable: Boolean = true): Seq[Seq[FileRange]] =
    ranges.groupBy(_.host).toSeq.sortBy(_._1).flatMap { case (host, onHost) =>
      val weight = onHost.map(r => r.until - r.from + openCost).sum
      val count = math.max(1L, math.min(slots(host).toLong, ceilDiv(weight, bytesMin)))
      cut(onHost, ceilDiv(weight, count), count.toInt, openCost, cuttable)
    }

  /** `ranges` in order, cut into `count` tasks of about `share` each; the last takes the rest. */
  private def cut(
      ranges: Seq[FileRange],
      share: Long,
      count: Int,
      openCost: Long,
      cuttable: Boolean): Seq[Seq[FileRange]] = {
    val tasks = Seq.newBuilder[Seq[FileRange]]
    var task = Vector.empty[FileRange]
    var filled = 0L
    var dealt = 0
    def close(): Unit = {
      tasks += task
      task = Vector.empty
      filled = 0L
      dealt += 1
    }
    ranges.foreach { whole =>
      var rest = Option(whole)
      while (rest.nonEmpty) {
        val r = rest.get
        val room = share - filled
        val weight = r.until - r.from + openCost
        // The last task takes the rest; an empty one takes at least a range.
        val fits = weight <= room || dealt == count - 1
        if (fits || task.isEmpty && (room <= openCost || !cuttable)) {
          task :+= r
          filled += weight
          rest = None
        } else if (room > openCost && cuttable) {
          // The line reader gives each line to the piece holding its first byte: any cut is exact.
          val at = r.from + (room - openCost)
          task :+= r.copy(until = at)
          rest = Some(r.copy(from = at))
          close()
        } else close()
      }
      if (filled >= share && dealt < count - 1) close()
    }
    if (task.nonEmpty) tasks += task
    tasks.result()
  }

  private def ceilDiv(a: Long, b: Long): Long = (a + b - 1) / b
}
