package com.hx.spark.sql.connector.aof.stream

import java.nio.file.{Files, Path}

import scala.collection.concurrent.TrieMap

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{Journald, Queries, SparkTestKit}

/**
 * `format` `journald`: a real journald's entries read by a query, exactly once through the
 * journal's rotations, a vacuum and the query's restarts.
 */
class JournalSourceSuite extends AnyFunSuite with SparkTestKit {

  private def withJournald(body: Journald => Unit): Unit =
    Journald.running(newDir("journald"))(body)

  private def start(
      journald: Journald,
      checkpoint: Path,
      out: Path,
      options: Map[String, String] = Map.empty): StreamingQuery =
    spark.readStream
      .format("aof")
      .option("format", "journald")
      .option("path", s"${journald.runtime}/*/.*\\.journal~?")
      .options(options)
      .load()
      .writeStream
      .format("parquet")
      .option("checkpointLocation", checkpoint.toString)
      .start(out.toString)

  private def rows(out: Path): Seq[Row] =
    spark.read.parquet(out.toString).orderBy("offset").collect().toSeq

  /** Logs `lines` as `app`, and waits until journald has written the last of them. */
  private def log(journald: Journald, lines: Seq[String], priority: String = "info"): Unit = {
    journald.log("app", lines, priority)
    eventually(s"journald wrote ${lines.last}", 30000) {
      journald.journalctl("-t", "app", "-o", "cat", "-D", "/run/log/journal").contains(lines.last)
    }
  }

  private def lost(query: StreamingQuery): Long =
    query.lastProgress.sources.head.metrics.get("bytesLost").toLong

  test("a node's journal is read once through rotations and restarts, with its fields") {
    withJournald { journald =>
      val (checkpoint, out) = (newDir("checkpoint"), newDir("out"))
      val first = start(journald, checkpoint, out)
      log(journald, (1 to 200).map(n => s"a$n"))
      journald.journalctl("--rotate")
      log(journald, (1 to 200).map(n => s"b$n"))
      Queries.drain(first)
      first.stop()
      log(journald, (1 to 100).map(n => s"c$n"))
      journald.journalctl("--rotate")
      log(journald, (1 to 100).map(n => s"d$n"))
      val second = start(journald, checkpoint, out)
      Queries.drain(second)
      assert(lost(second) === 0L)
      second.stop()
      val all = rows(out)
      val app = all.filter(_.getAs[String]("identifier") == "app")
      val expected = Seq("a" -> 200, "b" -> 200, "c" -> 100, "d" -> 100).flatMap { case (p, n) =>
        (1 to n).map(i => s"$p$i")
      }
      assert(app.map(_.getAs[String]("value")) === expected, "each entry once, in order")
      val ids =
        all.map(r => (r.getAs[String]("host"), r.getAs[String]("file_id"), r.getAs[Long]("offset")))
      assert(ids.distinct.size === ids.size, "(host, file_id, offset) names one entry")
      val one = app.head
      assert(one.getAs[Int]("priority") === 6)
      assert(one.getAs[Int]("pid") > 0)
      assert(one.getAs[String]("boot_id").matches("[0-9a-f]{32}"))
      assert(one.getAs[java.sql.Timestamp]("time").getTime > System.currentTimeMillis() - 600000)
      assert(one.getAs[String]("cursor").startsWith("s="))
      assert(one.getAs[Map[String, String]]("fields").get("_TRANSPORT") === Some("stdout"))
      // journalctl finds the entry by the cursor the row carries.
      val after = journald.journalctl(
        "--after-cursor",
        one.getAs[String]("cursor"),
        "-t",
        "app",
        "-o",
        "cat",
        "-n",
        "1",
        "--no-pager",
        "-D",
        "/run/log/journal")
      assert(after.trim === "a2")
    }
  }

  test("entries journald removed before they were read are counted lost; filters on the node") {
    withJournald { journald =>
      val (checkpoint, out) = (newDir("checkpoint"), newDir("out"))
      val options = Map("journal.identifiers" -> "app", "journal.priority" -> "warning")
      val first = start(journald, checkpoint, out, options)
      log(journald, (1 to 50).map(n => s"a$n"), "warning")
      log(journald, (1 to 50).map(n => s"quiet$n"), "info")
      Queries.drain(first)
      first.stop()
      log(journald, (1 to 100).map(n => s"b$n"), "err")
      journald.journalctl("--rotate")
      log(journald, (1 to 100).map(n => s"c$n"), "err")
      journald.journalctl("--vacuum-files=1")
      val second = start(journald, checkpoint, out, options)
      Queries.drain(second)
      assert(lost(second) >= 100L, "the b entries, and any journald wrote among them")
      second.stop()
      val values = rows(out).map(_.getAs[String]("value"))
      assert(values === (1 to 50).map(n => s"a$n") ++ (1 to 100).map(n => s"c$n"))
    }
  }

  test("a batch replayed after a crash reads the same entries, though journald rotated since") {
    withJournald { journald =>
      val checkpoint = newDir("checkpoint")
      val batches = TrieMap.empty[(Int, Long), Seq[(Long, String)]]
      def sorted(rows: Seq[(Long, String)]) = rows.sortBy(_._1)
      def run(n: Int): StreamingQuery = {
        val keep: (DataFrame, Long) => Unit = (batch, id) =>
          batches((n, id)) =
            batch.select("offset", "value").collect().map(r => (r.getLong(0), r.getString(1))).toSeq
        spark.readStream
          .format("aof")
          .option("format", "journald")
          .option("path", s"${journald.runtime}/*/.*\\.journal~?")
          .load()
          .writeStream
          .foreachBatch(keep)
          .option("checkpointLocation", checkpoint.toString)
          .start()
      }
      val first = run(1)
      log(journald, (1 to 100).map(n => s"r$n"))
      Queries.drain(first)
      first.stop()
      // The crash: the last batch ran, its commit was not written. Spark runs it again.
      val last = batches.keys.filter(_._1 == 1).map(_._2).max
      Seq(s"commits/$last", s"commits/.$last.crc").foreach { f =>
        Files.deleteIfExists(checkpoint.resolve(f))
      }
      journald.journalctl("--rotate")
      log(journald, (1 to 50).map(n => s"s$n"))
      val second = run(2)
      Queries.drain(second)
      second.stop()
      assert(
        batches.get((2, last)).map(sorted) === batches.get((1, last)).map(sorted),
        "the replay read what the batch did")
      val values = batches.toSeq.sortBy(_._1).flatMap { case ((n, id), rows) =>
        if (n == 2 && id == last) Nil else sorted(rows).map(_._2)
      }
      val app = values.filter(_.matches("[rs]\\d+"))
      assert(app === (1 to 100).map(n => s"r$n") ++ (1 to 50).map(n => s"s$n"))
    }
  }
}
