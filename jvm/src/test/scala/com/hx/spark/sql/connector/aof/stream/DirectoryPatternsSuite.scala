package com.hx.spark.sql.connector.aof.stream

import java.nio.file.{Files, Path}
import java.util.Comparator

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{LogWriter, Queries, Spark4Only, SparkTestKit}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/** A `path` whose directory part holds wildcards, on a layout like the kubelet's. */
@Spark4Only
class DirectoryPatternsSuite extends AnyFunSuite with SparkTestKit {

  /** `<pods>/<namespace>_<pod>_<uid>/<container>/0.log`, rotated to `0.log.<timestamp>`. */
  private final class Pods(root: Path) {
    def dir(pod: String): Path = root.resolve(s"default_${pod}_0d1e")
    def log(pod: String): Path =
      Files.createDirectories(dir(pod).resolve("app")).resolve("0.log")

    /** As the kubelet rotates: the log renamed, then a new one begun by the runtime. */
    def rotate(pod: String, stamp: String): Unit =
      Files.move(log(pod), log(pod).resolveSibling(s"0.log.$stamp"))

    def remove(pod: String): Unit = {
      val walk = Files.walk(dir(pod))
      try walk.sorted(Comparator.reverseOrder[Path]()).forEach(p => Files.delete(p))
      finally walk.close()
    }
  }

  test("pods appear and go and their logs rotate by rename: each line exactly once") {
    val (root, ckpt, out) = (newDir("pods"), newDir("ckpt"), newDir("out"))
    val pods = new Pods(root)
    val first = LogWriter.append(pods.log("a"), (1 to 200).map(n => s"a1-$n"))
    val query = Queries.start(spark, s"$root/*/app/0\\.log(\\.[0-9-]+)?", ckpt, out)
    drain(query)

    // Pods b and c appear while a's log rotates under a writer of b's.
    val writer = new LogWriter(pods.log("b"), "b", 3000).start()
    val c = LogWriter.append(pods.log("c"), (1 to 300).map(n => s"c-$n"))
    pods.rotate("a", "20261125-100000")
    val second = LogWriter.append(pods.log("a"), (1 to 300).map(n => s"a2-$n"))
    drain(query)

    // Pod c goes, its directory with it; a's log rotates again.
    pods.remove("c")
    pods.rotate("a", "20261125-100100")
    val third = LogWriter.append(pods.log("a"), (1 to 300).map(n => s"a3-$n"))
    val b = writer.join()
    drain(query)
    val lost = query.lastProgress.sources.head.metrics.get("bytesLost")
    query.stop()

    assert(lost === "0")
    assertExactlyOnce(spark, out, first ++ second ++ third ++ b ++ c)
    val paths = Queries.rows(spark, out).map(_.getString(2)).distinct
    assert(paths.contains(s"${pods.dir("c")}/app/0.log"), "the path column holds the full path")
  }

  test("a pattern whose directories do not exist yet reads them once they appear") {
    val (root, ckpt, out) = (newDir("later"), newDir("ckpt"), newDir("out"))
    val pods = new Pods(root.resolve("pods"))
    val query = Queries.start(spark, s"$root/pods/*/app/0\\.log", ckpt, out)
    drain(query)
    val lines = LogWriter.append(pods.log("d"), (1 to 100).map(n => s"d-$n"))
    drain(query)
    query.stop()
    assertExactlyOnce(spark, out, lines)
  }
}
