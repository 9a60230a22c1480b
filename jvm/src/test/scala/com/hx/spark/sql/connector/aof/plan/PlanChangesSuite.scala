package com.hx.spark.sql.connector.aof.plan

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets, RetiredFile}

class PlanChangesSuite extends AnyFunSuite {
  private def file(path: String, ino: Long, serial: Long, pos: Long): FileOffset =
    FileOffset(path, FileKey(1, ino), serial, 0, pos, Fingerprint(1, "x"))

  private def offset(files: FileOffset*): AofOffset =
    AofOffset(Map("h" -> HostOffsets(9, files.map(f => f.fileId -> f).toMap)))

  test("files followed on say nothing; replaced and gone files say what happened") {
    val kept = file("/l/a.log", 1, 0, 10)
    val replaced = file("/l/b.log", 2, 0, 20)
    val gone = file("/l/c.log", 3, 0, 30)
    val start = offset(kept, replaced, gone)
    val end = offset(kept.copy(pos = 15), file("/l/b.log", 2, 5, 4))
    assert(
      PlanChanges.between(start, end) === Seq(
        "h:/l/b.log (1:2) holds new content: file 1:2:0 read up to 20, now read as 1:2:5 from " +
          "its start",
        "h:/l/c.log (file 1:3:0, read up to 30) is gone"))
    assert(PlanChanges.between(start, start).isEmpty)
  }

  test("a file retired says it is remembered for its copy") {
    val gone = file("/l/c.log", 3, 0, 30)
    val end =
      AofOffset(Map("h" -> HostOffsets(9, Map.empty, Map(gone.fileId -> RetiredFile(gone)))))
    assert(
      PlanChanges.between(offset(gone), end) === Seq(
        "h:/l/c.log (file 1:3:0, read up to 30) is gone; remembered until a look finds no copy " +
          "of it"))
  }
}
