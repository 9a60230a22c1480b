package com.hx.spark.sql.connector.aof.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import scala.collection.JavaConverters._

import org.apache.hadoop.conf.Configuration

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets, OffsetSnapshots}

/**
 * The source's share of a checkpoint over many batches: the real offsets and snapshots, written
 * as a query's batches would, with Spark's offset log kept as Spark keeps it (the last
 * `minBatchesToRetain` batches, 100 by default; older entries deleted as batches commit). Each
 * batch moves on files that did not move since the last snapshot, the worst case for snapshots.
 * Writes a Markdown table: the directory's size and file count as the batches go.
 *
 * `build/sbt "aof/Test/runMain com.hx.spark.sql.connector.aof.bench.CheckpointGrowth <out.md>"`
 */
object CheckpointGrowth {
  private val Retained = 100

  final case class Run(files: Int, changedPerBatch: Int, batches: Int)

  def main(args: Array[String]): Unit = {
    val runs = Seq(Run(10000, 10, 10000), Run(100000, 100, 1000))
    val root = Files.createTempDirectory("aof-checkpoint-")
    val rows = runs.flatMap(run => measure(root.resolve(s"files-${run.files}"), run))
    val table =
      "| files | changed a batch | batch | offset log (files, bytes) | snapshots (files, bytes) " +
        "| bytes a tracked file, all |\n|---:|---:|---:|---:|---:|---:|\n" + rows.mkString
    val header =
      "# The checkpoint over many batches\n\nWritten by `make bench-fleet` (`CheckpointGrowth`); " +
        "do not edit by hand. The source's offsets and snapshots as a query writes them, " +
        s"Spark's offset log keeping its last $Retained batches; each batch moves on files not " +
        "moved since the last snapshot (the worst case).\n\n"
    Files.write(Paths.get(args.head), (header + table).getBytes(UTF_8))
    print(table)
  }

  private def measure(dir: Path, run: Run): Seq[String] = {
    val log = Files.createDirectories(dir.resolve("offsets"))
    val logged = (batch: Long) => log.resolve(batch.toString)
    var oldest = 0L
    val snapshots = new OffsetSnapshots(
      new Configuration(),
      dir.resolve("sources/0").toString,
      () => Some(new String(Files.readAllBytes(logged(oldest)), UTF_8)))
    val hostCount = math.max(1, run.files / 1000)
    var hosts = initial(run.files, hostCount)
    var start = AofOffset.Empty
    (0 until run.batches).flatMap { batch =>
      (0 until run.changedPerBatch)
        .map(k => (batch * run.changedPerBatch + k) % run.files)
        .foreach { i =>
          val host = s"host-${i % hostCount}"
          val h = hosts(host)
          val id = FileOffset.fileId(FileKey(1, i), 0)
          val f = h.files(id)
          hosts += host -> h.copy(files = h.files + (id -> f.copy(pos = f.pos + 100, seen = f.pos)))
        }
      val end = snapshots.rebase(start, AofOffset(hosts))
      Files.write(logged(batch), end.json().getBytes(UTF_8))
      // As Spark purges its log once a batch commits: the last `Retained` batches stay.
      if (batch >= Retained) Files.delete(logged(batch - Retained))
      oldest = math.max(0, batch - Retained + 1)
      snapshots.forgetUnused()
      start = end
      if ((batch + 1) % (run.batches / 10) == 0) Some(row(dir, run, batch + 1)) else None
    }
  }

  private def initial(files: Int, hostCount: Int): Map[String, HostOffsets] =
    (0 until files)
      .map { i =>
        val f = FileOffset(
          s"/var/log/app/service-$i.log",
          FileKey(1, i),
          0,
          0,
          1000,
          Fingerprint(1024, f"$i%032x"),
          Some(Fingerprint(1024, f"${i + 1}%032x")),
          1000)
        s"host-${i % hostCount}" -> f
      }
      .groupBy(_._1)
      .map { case (host, fs) => host -> HostOffsets(files, fs.map(f => f._2.fileId -> f._2).toMap) }

  private def row(dir: Path, run: Run, batch: Int): String = {
    def sizes(sub: String): (Int, Long) = {
      val files = Files.list(dir.resolve(sub)).iterator().asScala.toSeq
      files.size -> files.map(Files.size).sum
    }
    val (logFiles, logBytes) = sizes("offsets")
    val (snapFiles, snapBytes) = sizes("sources/0/snapshots")
    s"| ${run.files} | ${run.changedPerBatch} | $batch | $logFiles, $logBytes | " +
      s"$snapFiles, $snapBytes | ${(logBytes + snapBytes) / run.files} |\n"
  }
}
