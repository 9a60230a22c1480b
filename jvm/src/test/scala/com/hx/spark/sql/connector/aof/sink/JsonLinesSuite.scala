package com.hx.spark.sql.connector.aof.sink

import java.nio.file.{Files, Path}
import java.util.concurrent.Executors

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.TempDirectories

/**
 * The JSON lines sink writes each row as it comes: flushed row by row, or once the reader of its
 * task has no more at hand where that reader tells ([[RowBursts]]).
 */
class JsonLinesSuite extends AnyFunSuite with TempDirectories {
  private def lines(file: Path): Seq[String] =
    if (Files.exists(file)) new String(Files.readAllBytes(file), "UTF-8").linesIterator.toList
    else Nil

  private def opened(file: Path): JsonLines = {
    val sink = JsonLines.to(file.toString)
    assert(sink.open(0L, 0L))
    sink
  }

  test("where no reader tells, each row is in the file once it is processed") {
    val file = tempDirectory("rows").resolve("out.jsonl")
    val sink = opened(file)
    sink.process(Row("a"))
    assert(lines(file) === Seq("""{"col1":"a"}"""))
    sink.process(Row("b"))
    assert(lines(file).size === 2)
    sink.close(null)
  }

  test("where the task's reader tells, the rows read together are flushed together, at its word") {
    val file = tempDirectory("bursts").resolve("out.jsonl")
    RowBursts.tell()
    try {
      val sink = opened(file)
      (1 to 3).foreach(i => sink.process(Row(s"r-$i")))
      assert(lines(file) === Nil, "held until the reader has no more")
      RowBursts.ended()
      assert(lines(file).size === 3)
      sink.process(Row("r-4"))
      assert(lines(file).size === 3)
      RowBursts.ended()
      assert(lines(file).size === 4)
      sink.close(null)
      RowBursts.ended() // after the sink closed: nothing to flush, nothing fails
    } finally RowBursts.stop()
    val after = opened(file)
    after.process(Row("r-5"))
    assert(lines(file).size === 5, "its reader stopped: row by row again")
    after.close(null)
  }

  test("a reader tells only the sinks of its own thread") {
    val file = tempDirectory("threads").resolve("out.jsonl")
    val other = Executors.newSingleThreadExecutor()
    RowBursts.tell()
    try {
      val sink = Await.result(Future(opened(file))(ExecutionContext.fromExecutor(other)), 1.minute)
      Await.result(Future(sink.process(Row("a")))(ExecutionContext.fromExecutor(other)), 1.minute)
      assert(lines(file) === Seq("""{"col1":"a"}"""))
      sink.close(null)
    } finally {
      RowBursts.stop()
      other.shutdown()
    }
  }
}
