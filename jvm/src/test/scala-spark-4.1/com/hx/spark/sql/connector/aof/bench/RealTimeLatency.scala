package com.hx.spark.sql.connector.aof.bench

import java.io.FileOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.locks.LockSupport

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{ForeachWriter, Row, SparkSession}
import org.apache.spark.sql.streaming.{StreamingQuery, Trigger}

import com.hx.spark.sql.connector.aof.testkit.Polling

/**
 * How long a line takes from its write to a sink: a logger appends 1,000 lines a second, each a
 * write of its own holding the time it was written, and a `foreach` writer in the same JVM notes
 * when each arrives. Real-time mode against micro-batch mode with the default trigger, one after
 * the other in one session. Writes a Markdown table.
 *
 * With a Kafka broker's address, Spark's Kafka source in real-time mode too, the lines produced
 * to a topic as they are written ([[KafkaReference]]).
 *
 * `build/sbt "+realtime/Test/runMain com.hx.spark.sql.connector.aof.bench.RealTimeLatency
 * <out.md> [seconds] [broker]"`
 */
object RealTimeLatency {
  private val Rate = 1000
  private val arrivals = new ConcurrentLinkedQueue[java.lang.Long]()

  /** Notes each line's latency, in microseconds, from the write time it holds. */
  final class Arrivals extends ForeachWriter[Row] {
    override def open(partitionId: Long, epochId: Long): Boolean = true
    override def process(row: Row): Unit = {
      val now = System.nanoTime()
      val written = row.getString(0).takeWhile(_ != ' ').toLong
      arrivals.add((now - written) / 1000)
    }
    override def close(errorCause: Throwable): Unit = ()
  }

  def main(args: Array[String]): Unit = {
    val seconds = args.lift(1).fold(60)(_.toInt)
    val kafka = args.lift(2)
    val spark = SparkSession
      .builder()
      .master("local[2]")
      .appName("aof real-time latency")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    val root = Files.createTempDirectory("aof-latency-")
    val realTime = Trigger.RealTime("5 minutes")
    val files = Seq(
      "real-time mode (`trigger(realTime=\"5 minutes\")`)" -> realTime,
      "micro-batch mode (default trigger)" -> Trigger.ProcessingTime(0L)).zipWithIndex.map {
      case ((name, trigger), i) => name -> (() => fromFile(spark, root.resolve(s"run-$i"), trigger))
    }
    val reference = kafka.toSeq.map { address =>
      s"Spark's Kafka source ${KafkaReference.Version}, real-time mode" ->
        (() => KafkaReference.source(spark, address, root.resolve("kafka"), realTime))
    }
    val rows = (files ++ reference).map { case (name, source) =>
      val figures = measure(source(), seconds)
      println(s"$name: $figures")
      s"| $name | $figures |\n"
    }
    val table =
      "| source and mode | lines | p50 | p95 | p99 |\n| --- | ---: | ---: | ---: | ---: |\n" +
        rows.mkString
    // Asked of the running Spark: `spark.version` is a constant the compiler copies in.
    val version = spark.sql("SELECT version()").head().getString(0).takeWhile(_ != ' ')
    val header =
      "# Latency from a write to a sink\n\nWritten by `make bench` (`RealTimeLatency`); do not " +
        s"edit by hand. A logger appends $Rate lines a second for $seconds s, each line a write " +
        "of its own holding the time it was written; a `foreach` writer in the same JVM notes " +
        s"each arrival. Spark $version, `local[2]`, one after the other in one session. " +
        KafkaReference.describe(kafka.isDefined) + "\n\n"
    Files.write(Paths.get(args.head), (header + table).getBytes(UTF_8))
    spark.stop()
  }

  /** A source's query, started, and how a line is written to what it reads. */
  final case class Source(query: StreamingQuery, write: Array[Byte] => Unit, close: () => Unit)

  /** Lines appended to a log, read by this source. */
  private def fromFile(spark: SparkSession, dir: Path, trigger: Trigger): Source = {
    Files.createDirectories(dir)
    val log = Files.createFile(dir.resolve("app.log"))
    val out = new FileOutputStream(log.toFile, true)
    val query = spark.readStream
      .format("aof")
      .load(s"$dir/app\\.log")
      .select("value")
      .writeStream
      .outputMode("update")
      .foreach(new Arrivals)
      .option("checkpointLocation", dir.resolve("checkpoint").toString)
      .trigger(trigger)
      .start()
    Source(query, bytes => out.write(bytes), () => out.close())
  }

  private def measure(source: Source, seconds: Int): String = {
    arrivals.clear()
    try {
      // The first lines wait for the query's start: measured from when it reads.
      source.write(s"${System.nanoTime()} warm\n".getBytes(UTF_8))
      Polling.eventually("the query reads", 120000)(!arrivals.isEmpty)
      arrivals.clear()
      val written = write(source, seconds)
      Polling.eventually("every line arrives")(arrivals.size >= written)
    } finally {
      source.query.stop()
      source.close()
    }
    val latencies = arrivals.asScala.map(_.longValue).toVector.sorted
    def at(q: Double) =
      f"${latencies(math.min(latencies.size - 1, (latencies.size * q).toInt)) / 1000.0}%.1f ms"
    s"${latencies.size} | ${at(0.50)} | ${at(0.95)} | ${at(0.99)}"
  }

  /** Writes `Rate` lines a second for `seconds`, one write each; returns how many. */
  private def write(source: Source, seconds: Int): Int = {
    val started = System.nanoTime()
    var n = 0
    while (n < Rate * seconds) {
      val due = started + n * (1000000000L / Rate)
      LockSupport.parkNanos(due - System.nanoTime()) // the logger's pace
      source.write(s"${System.nanoTime()} line $n\n".getBytes(UTF_8))
      n += 1
    }
    n
  }
}
