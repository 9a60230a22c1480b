package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}

class TasksSuite extends AnyFunSuite {
  private def range(host: String, n: Int, length: Long): FileRange =
    FileRange(host, s"/l/$n", FileKey(1, n), s"$n", 0, length, Fingerprint.Empty)

  // Tasks as (file number, from, until) of the pieces they read.
  private def deal(
      ranges: Seq[FileRange],
      slots: Map[String, Int],
      bytesMin: Long,
      openCost: Long,
      cuttable: Boolean = true): Seq[Seq[(Int, Long, Long)]] =
    Tasks
      .deal(ranges, slots.getOrElse(_, 1), bytesMin, openCost, cuttable)
      .map(_.map(r => (r.key.ino.toInt, r.from, r.until)))

  private def whole(files: Int*): Seq[(Int, Long, Long)] = files.map(n => (n, 0L, 5L))

  private val cases = Seq(
    // (what, ranges, slots, bytesMin, openCost, tasks)
    (
      "less than bytesMin is one task, whatever the slots",
      (1 to 9).map(range("a", _, 5)),
      Map("a" -> 4),
      100L,
      0L,
      Seq(whole(1 to 9: _*))),
    (
      "more is shared evenly over the slots",
      (1 to 8).map(range("a", _, 5)),
      Map("a" -> 2),
      10L,
      0L,
      Seq(whole(1 to 4: _*), whole(5 to 8: _*))),
    (
      "never more tasks than slots, however much there is",
      Seq(range("a", 1, 1000)),
      Map("a" -> 2),
      10L,
      0L,
      Seq(Seq((1, 0L, 500L)), Seq((1, 500L, 1000L)))),
    (
      "no more tasks than bytesMin allows, though slots are free",
      Seq(range("a", 1, 1000)),
      Map("a" -> 8),
      400L,
      0L,
      Seq(Seq((1, 0L, 334L)), Seq((1, 334L, 668L)), Seq((1, 668L, 1000L)))),
    (
      "a file is cut where a share ends, the rest starts the next task",
      Seq(range("a", 1, 30), range("a", 2, 50), range("a", 3, 20)),
      Map("a" -> 2),
      10L,
      0L,
      Seq(Seq((1, 0L, 30L), (2, 0L, 20L)), Seq((2, 20L, 50L), (3, 0L, 20L)))),
    (
      "each range also weighs its open cost",
      (1 to 4).map(range("a", _, 5)),
      Map("a" -> 2),
      10L,
      95L,
      Seq(whole(1, 2), whole(3, 4))),
    (
      "an open cost above a share still gives every task a range, never an empty one",
      (1 to 2).map(range("a", _, 5)),
      Map("a" -> 4),
      1L,
      100L,
      Seq(whole(1), whole(2))),
    (
      "each host by its own slots; hosts are never mixed",
      Seq(range("b", 1, 100), range("a", 2, 100), range("b", 3, 100)),
      Map("a" -> 1, "b" -> 3),
      10L,
      0L,
      Seq(
        Seq((2, 0L, 100L)),
        Seq((1, 0L, 67L)),
        Seq((1, 67L, 100L), (3, 0L, 34L)),
        Seq((3, 34L, 100L)))),
    (
      "a host not known counts one slot",
      Seq(range("c", 1, 100)),
      Map.empty[String, Int],
      10L,
      0L,
      Seq(Seq((1, 0L, 100L)))),
    ("nothing to read, no task", Nil, Map("a" -> 2), 100L, 0L, Nil)
  )

  cases.foreach { case (what, ranges, slots, bytesMin, openCost, tasks) =>
    test(what) {
      val dealt = deal(ranges, slots, bytesMin, openCost)
      assert(dealt === tasks)
      // Every byte once: the pieces of each file tile its range.
      val pieces = dealt.flatten.groupBy(_._1).map { case (n, ps) => n -> ps.sortBy(_._2) }
      ranges.foreach { r =>
        val ps = pieces(r.key.ino.toInt)
        assert(ps.head._2 === r.from && ps.last._3 === r.until)
        ps.zip(ps.tail).foreach { case (a, b) => assert(a._3 === b._2) }
      }
    }
  }

  test("multi-line records: ranges are dealt whole, never cut, and no task is empty") {
    val ranges = Seq(range("a", 1, 30), range("a", 2, 50), range("a", 3, 20), range("a", 4, 1000))
    assert(
      deal(ranges, Map("a" -> 3), 10L, 0L, cuttable = false) ===
        Seq(Seq((1, 0L, 30L), (2, 0L, 50L), (3, 0L, 20L)), Seq((4, 0L, 1000L))))
    assert(
      deal(Seq(range("a", 1, 1000)), Map("a" -> 8), 1L, 0L, cuttable = false) ===
        Seq(Seq((1, 0L, 1000L))))
  }

  test("a range of messages is cut only where its node said, at the last cut within a share") {
    val file = range("a", 1, 1000)
    def dealt(cuts: Seq[Long], slots: Int) =
      Tasks
        .deal(Seq(file), _ => slots, 10L, 0L, cuttable = false, cutsOf = _ => cuts)
        .map(_.map(r => (r.from, r.until)))
    assert(dealt(Seq(256L, 512L, 900L), 2) === Seq(Seq((0L, 256L)), Seq((256L, 1000L))))
    assert(dealt(Seq(100L, 300L, 500L, 700L), 2) === Seq(Seq((0L, 500L)), Seq((500L, 1000L))))
    // None within a share: the nearest past it, in a task of its own.
    assert(
      dealt(Seq(240L, 500L, 740L), 4) ===
        Seq(Seq((0L, 240L)), Seq((240L, 500L)), Seq((500L, 740L)), Seq((740L, 1000L))))
    assert(dealt(Seq(900L), 2) === Seq(Seq((0L, 900L)), Seq((900L, 1000L))))
    // None at all, as multi-line records: the range is one task.
    assert(dealt(Nil, 2) === Seq(Seq((0L, 1000L))))
  }

  test("the open tail a range reads first goes with its first piece only: read once") {
    val tail = range("a", 2, 300).copy(from = 200)
    val file = range("a", 1, 1000).copy(continues = Some(tail))
    val tasks = Tasks.deal(Seq(file), _ => 2, 10L, 0L, cuttable = false, cutsOf = _ => Seq(500L))
    assert(
      tasks.map(_.map(r => (r.from, r.continues))) ===
        Seq(Seq((0L, Some(tail))), Seq((500L, None))))
  }
}
