package com.hx.spark.sql.connector.aof.files.records

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

class BatchCutsSuite extends AnyFunSuite {
  private def lines(count: Int, length: Int) = Seq.fill(count)("x" * (length - 1) + "\n").mkString
  private val hundreds = lines(1000, 100)

  private case class Row(
      what: String,
      content: String,
      floor: Long,
      limits: Seq[Long],
      cuts: Seq[Long],
      lineEnd: Option[Long] = None)

  // format: off
  private val doubling = Seq[Long](200, 500, 1000, 2000, 4000, 8100, 16300, 32700, 65500)
  private val table = Seq(
    Row("no limit of its own: the last line start within 256 bytes, 512, ... of the floor", hundreds, 0, Nil, doubling),
    Row("a limit: the last line start within it too", hundreds, 0, Seq(350), Seq(200L, 300L) ++ doubling.tail),
    Row("a line that ends at the limit fits in it", hundreds, 0, Seq(300), Seq(200L, 300L) ++ doubling.tail),
    Row("bytes.max and batch.bytes.max", hundreds, 0, Seq(350, 750), Seq(200L, 300L, 500L, 700L) ++ doubling.drop(2)),
    Row("from the floor", hundreds, 1000, Seq(350), Seq(1200, 1300, 1500, 2000, 3000, 5000, 9100, 17300, 33700, 66500)),
    Row("lines longer than the limit: the first start past it", lines(20, 5000), 0, Seq(1000), Seq(5000, 15000, 30000, 65000)),
    Row("nothing past the last complete line", hundreds, 0, Seq(350), Seq(200, 300, 500, 1000, 2000), lineEnd = Some(4000)),
    Row("less than a threshold to read: none", hundreds, 99800, Nil, Nil),
    Row("a limit past the end: none of its own", hundreds, 0, Seq(1L << 40), doubling)
  )
  // format: on

  table.foreach { row =>
    test(row.what) {
      val file = Files.createTempFile("cuts-", ".log")
      try {
        Files.write(file, row.content.getBytes(UTF_8))
        val channel = FileChannel.open(file)
        try {
          val end = row.lineEnd.getOrElse(channel.size)
          assert(BatchCuts(row.limits).lineStarts(channel, row.floor, end) === row.cuts)
        } finally channel.close()
      } finally Files.delete(file)
    }
  }

  test("thresholds stay in range near the end of a Long") {
    val floor = Long.MaxValue - 10000
    val thresholds = BatchCuts(Seq(Long.MaxValue)).thresholds(floor).toSeq
    assert(thresholds === Seq(256L, 512L, 1024L, 2048L, 4096L, 8192L).map(floor + _))
  }
}
