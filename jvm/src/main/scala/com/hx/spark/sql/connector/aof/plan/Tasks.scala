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
 * A range of records is cut only at the cuts given for it (`cutsOf`): positions where a record
 * starts and no line of one is open across, as the node reported them (a container runtime's
 * messages); multi-line records give none, and their ranges are never cut.
 *
 * Each range also weighs `openCost` bytes, as Spark's file sources count opening a file, so ten
 * thousand files of a line each are shared out like ten thousand files, not like a few bytes.
 */
object Tasks {

  /**
   * @param slots    the task slots of a host (at least one is assumed)
   * @param bytesMin the least a task is given before a host's reading is spread over more tasks
   * @param openCost what opening one range costs, in bytes
   * @param cuttable  whether a range may be cut anywhere between tasks (lines: yes; records: no)
   * @param cutsOf    where a range that is not cuttable may be cut, in increasing order
   */
  def deal(
      ranges: Seq[FileRange],
      slots: String => Int,
      bytesMin: Long,
      openCost: Long,
      cuttable: Boolean = true,
      cutsOf: FileRange => Seq[Long] = _ => Nil): Seq[Seq[FileRange]] =
    ranges.groupBy(_.host).toSeq.sortBy(_._1).flatMap { case (host, onHost) =>
      val weight = onHost.map(r => r.until - r.from + openCost).sum
      val count = math.max(1L, math.min(slots(host).toLong, ceilDiv(weight, bytesMin)))
      val at: (FileRange, Long) => Option[Long] =
        if (cuttable) (r, most) => Some(r.from + most).filter(_ > r.from)
        else { (r, most) =>
          val inside = cutsOf(r).filter(c => c > r.from && c < r.until)
          inside.takeWhile(_ <= r.from + most).lastOption.orElse(inside.headOption)
        }
      cut(onHost, ceilDiv(weight, count), count.toInt, openCost, at)
    }

  /**
   * `ranges` in order, cut into `count` tasks of about `share` each; the last takes the rest.
   * `at(r, most)` is where `r` may be cut to give a task at most `most` of its bytes, or the
   * nearest cut past that when there is none within: a task of its own then takes more.
   */
  private def cut(
      ranges: Seq[FileRange],
      share: Long,
      count: Int,
      openCost: Long,
      at: (FileRange, Long) => Option[Long]): Seq[Seq[FileRange]] = {
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
        // The line reader gives each line to the piece holding its first byte: any cut is exact.
        val cutAt = if (fits) None else at(r, room - openCost)
        val over = cutAt.exists(_ > r.from + (room - openCost))
        if (fits || cutAt.isEmpty && task.isEmpty) {
          task :+= r
          filled += weight
          rest = None
        } else if (cutAt.nonEmpty && (!over || task.isEmpty)) {
          task :+= r.copy(until = cutAt.get)
          rest = Some(r.copy(from = cutAt.get, continues = None))
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
