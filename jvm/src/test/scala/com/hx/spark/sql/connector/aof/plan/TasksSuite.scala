package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.{FileKey, Fingerprint}

class TasksSuite extends AnyFunSuite {
  private def range(host: String, n: Int, length: Long): FileRange =
    FileRange(host, s"/l/$n", FileKey(1, n), s"$n", 0, length, Fingerprint.Empty)

  // Tasks as the file numbers they read.
  private def pack(ranges: Seq[FileRange], bytesMax: Long, openCost: Long): Seq[Seq[Int]] =
    Tasks.pack(ranges, bytesMax, openCost).map(_.map(_.key.ino.toInt))

  private val cases = Seq(
    // (what, ranges, bytesMax, openCost, tasks)
    ("many small files are one task", (1 to 10).map(range("a", _, 5)), 100L, 0L, Seq(1 to 10)),
    (
      "each file also counts its open cost",
      (1 to 3).map(range("a", _, 1)),
      100L,
      50L,
      Seq(Seq(1, 2), Seq(3))),
    (
      "a full range is a task of its own",
      Seq(range("a", 1, 10), range("a", 2, 100), range("a", 3, 10)),
      100L,
      0L,
      Seq(Seq(2), Seq(1, 3))),
    (
      "hosts are never mixed",
      Seq(range("b", 1, 1), range("a", 2, 1), range("b", 3, 1)),
      100L,
      0L,
      Seq(Seq(2), Seq(1, 3))),
    ("nothing to read, no task", Nil, 100L, 0L, Nil)
  )

  cases.foreach { case (what, ranges, bytesMax, openCost, tasks) =>
    test(what) {
      assert(pack(ranges, bytesMax, openCost) === tasks)
      assert(pack(ranges, bytesMax, openCost).flatten.sorted === ranges.map(_.key.ino.toInt).sorted)
    }
  }
}
