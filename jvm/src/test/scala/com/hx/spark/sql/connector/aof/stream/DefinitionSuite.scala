package com.hx.spark.sql.connector.aof.stream

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}

import scala.collection.JavaConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.{PathMistakes, UnknownOptions}
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint, Prefixes}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.shim.SparkExecutors
import com.hx.spark.sql.connector.aof.testkit.{Logged, NameSwapper, SparkTestKit}
import com.hx.spark.sql.connector.aof.zookeeper.ZkAccess

/** What a user sees when defining a query, before any data moves. */
class DefinitionSuite extends AnyFunSuite with SparkTestKit {
  // Readers that never reach ZooKeeper: it is only asked when a task runs on the wrong host.
  // They read only the files of their `path`: those of `dir`.
  private def specOf(dir: Path): EndpointSpec =
    EndpointSpec("r", ZkAccess("127.0.0.1:1", 1000), "/m", SourceFiles(dir, ".*"), 1, "k")
  private val spec = specOf(Paths.get("/etc"))

  test("a bad option fails at load(), naming the option") {
    val e = intercept[IllegalArgumentException] {
      spark.readStream.format("aof").option("starting.offsets", "middle").load("/var/log/x.*")
    }
    assert(e.getMessage.contains("'starting.offsets'"))
  }

  test("a bad session conf fails at load(), naming its key") {
    spark.conf.set("spark.aof.bytes.max", "-1")
    try {
      val e =
        intercept[IllegalArgumentException](spark.readStream.format("aof").load("/var/log/x.*"))
      assert(e.getMessage.contains("spark.aof.bytes.max"))
    } finally spark.conf.unset("spark.aof.bytes.max")
  }

  test("a path naming a directory is refused at load(), with the path meant") {
    val dir = newDir("logs")
    Files.createDirectories(dir.resolve("app"))
    Files.write(dir.resolve("app/app.log"), "a line\n".getBytes(UTF_8))
    val e = intercept[IllegalArgumentException](spark.readStream.format("aof").load(s"$dir/app"))
    assert(e.getMessage.contains("'path'"))
    assert(e.getMessage.contains(s"use '$dir/app/.*'"))
  }

  test("a shell glob as the file-name part is refused at load(), with the regex it means") {
    val dir = newDir("logs")
    Files.write(dir.resolve("app-1.log"), "a line\n".getBytes(UTF_8))
    // Not a regex at all.
    val invalid = intercept[IllegalArgumentException] {
      spark.readStream.format("aof").load(s"$dir/*.log")
    }
    assert(invalid.getMessage.contains(s"use '$dir/.*\\.log'"), invalid.getMessage)
    // A regex too, that matches none of the files the glob names.
    val glob = intercept[IllegalArgumentException] {
      spark.readStream.format("aof").load(s"$dir/app-?.log")
    }
    assert(glob.getMessage.contains(s"use '$dir/app-.\\.log'"), glob.getMessage)
    // A regex that matches no file yet, and no file as a glob either, is for files to come.
    assert(spark.readStream.format("aof").load(s"$dir/other-?.log").isStreaming)
  }

  test("a glob that is a regex too, matching other files as one, is warned about once") {
    val dir = newDir("logs")
    Seq("app.log", "app-1.log", "app.log.1").foreach { name =>
      Files.write(dir.resolve(name), "a line\n".getBytes(UTF_8))
    }
    val logged = Logged.during(PathMistakes.getClass.getName) { seen =>
      (1 to 2).foreach(_ => spark.readStream.format("aof").load(s"$dir/app*.log"))
      spark.readStream.format("aof").load(s"$dir/app.log*")
      // Regexes that do not read as globs, or whose files are the glob's: nothing to say.
      spark.readStream.format("aof").load(s"$dir/app.*\\.log")
      spark.readStream.format("aof").load(s"$dir/app-1*.log")
      seen()
    }
    assert(logged.size === 2, logged)
    assert(logged.head.contains(s"'path' ($dir/app*.log) is read as a Java regex"), logged)
    assert(logged.head.contains("matches 1 (app.log)"), logged)
    assert(logged.head.contains(s"use '$dir/app.*\\.log'"), logged)
    assert(logged(1).contains(s"use '$dir/app\\.log.*'"), logged)
  }

  test("an unknown option is warned about once, naming the closest known one") {
    val logged = Logged.during(UnknownOptions.getClass.getName) { seen =>
      (1 to 2).foreach { _ =>
        spark.readStream.format("aof").option("bytes.maxx", "1").load("/var/log/x.*")
      }
      seen()
    }
    assert(logged.count(_.contains("'bytes.maxx'")) === 1, logged)
    assert(logged.exists(_.contains("did you mean 'bytes.max'?")), logged)
  }

  test("shell globs as the regexes they mean") {
    val globs = Seq(
      "*.log" -> ".*\\.log",
      "app-?.log" -> "app-.\\.log",
      "app.{log,txt}" -> "app\\.(log|txt)",
      "[ab]*.log" -> "[ab].*\\.log",
      "a+b(1).log" -> "a\\+b\\(1\\)\\.log")
    assert(globs.map { case (g, _) => g -> PathMistakes.globAsRegex(g) } === globs)
  }

  test("the schema is value, host, path, offset, file_id, timestamp") {
    val df = spark.readStream.format("aof").load("/var/log/x.*")
    assert(
      df.schema.fieldNames.toSeq === Seq("value", "host", "path", "offset", "file_id", "timestamp"))
    assert(df.isStreaming)
  }

  test("a runtime's format adds stream and time; path.columns a column for each group") {
    val df = spark.readStream
      .format("aof")
      .option("format", "cri")
      .option("path.columns", "/pods/(?<namespace>[^_]+)_(?<pod>[^_]+)_(?<pod_uid>[^/]+)/")
      .load("/var/log/x.*")
    assert(
      df.schema.map(f => f.name -> f.nullable).drop(6) === Seq(
        "stream" -> true,
        "time" -> true,
        "namespace" -> true,
        "pod" -> true,
        "pod_uid" -> true))
    val e = intercept[IllegalArgumentException] {
      spark.readStream
        .format("aof")
        .option("format", "docker")
        .option("path.columns", "/(?<stream>[^/]+)/")
        .load("/var/log/x.*")
    }
    assert(e.getMessage.contains("'path.columns'") && e.getMessage.contains("'stream'"))
  }

  test("header.lines adds a header column, before the path's; a group may not take its name") {
    val df = spark.readStream
      .format("aof")
      .option("header.lines", "^#")
      .option("path.columns", "/(?<site>[^/]+)/")
      .load("/var/log/x.*")
    assert(
      df.schema.map(f => f.name -> f.nullable).drop(6) === Seq("header" -> true, "site" -> true))
    val e = intercept[IllegalArgumentException] {
      spark.readStream
        .format("aof")
        .option("header.lines", "^#")
        .option("path.columns", "/(?<header>[^/]+)/")
        .load("/var/log/x.*")
    }
    assert(e.getMessage.contains("'path.columns'") && e.getMessage.contains("'header'"))
  }

  test("a path matching only symbolic links is refused at load(), naming where they lead") {
    // As Kubernetes' /var/log/containers links into /var/log/pods.
    val pod = Files.createDirectories(newDir("pods").resolve("shop_web_0f1e/nginx"))
    Files.write(pod.resolve("0.log"), "a line\n".getBytes(UTF_8))
    val links = newDir("containers")
    Files.createSymbolicLink(links.resolve("web_shop_nginx-0f1e.log"), pod.resolve("0.log"))
    val e = intercept[IllegalArgumentException] {
      spark.readStream.format("aof").load(s"$links/.*\\.log")
    }
    assert(e.getMessage.contains("matches only symbolic links"), e.getMessage)
    assert(e.getMessage.contains(s"into $pod"), e.getMessage)
    assert(e.getMessage.contains(s"$pod/0\\.log.*"), e.getMessage)
  }

  test("a reader for another host's files refuses to read, outside a task at once") {
    val counters = ReadCounters.register(spark.sparkContext)
    val range =
      FileRange(
        "some-other-host",
        "/etc/hostname",
        FileKey(1, 1),
        "1:1:0",
        0,
        10,
        Fingerprint.Empty)
    val e = intercept[IllegalStateException](
      new AofPartitionReader(AofInputPartition(Seq(range)), false, counters, spec))
    assert(e.getMessage.contains("files of host some-other-host"))
    assert(e.getMessage.contains("cannot read"))
  }

  test("a planned range reads the same bytes after a rename, and after copy and truncate") {
    val dir = newDir("replay")
    val file = dir.resolve("app.log")
    Files.write(file, (1 to 50).map(n => s"line-$n\n").mkString.getBytes(UTF_8))
    val size = Files.size(file)
    val head = {
      val channel = FileChannel.open(file)
      try Prefixes.md5(channel, size).get
      finally channel.close()
    }
    val range =
      FileRange(SparkExecutors.currentHost, file.toString, FileKey.of(file), "id", 7, size, head)
    val counters = ReadCounters.register(spark.sparkContext)
    def read(): Seq[(String, Long)] = {
      val reader =
        new AofPartitionReader(AofInputPartition(Seq(range)), true, counters, specOf(dir))
      try rows(reader).map(r => (r.getUTF8String(0).toString, r.getLong(3))).toList
      finally reader.close()
    }
    val planned = read()
    assert(planned.head === (("line-2", 7L)))
    Files.move(file, dir.resolve("app.log.1"))
    assert(read() === planned)
    Files.copy(dir.resolve("app.log.1"), dir.resolve("app.log.2"))
    Files.write(
      dir.resolve("app.log.1"),
      Array.emptyByteArray,
      StandardOpenOption.TRUNCATE_EXISTING)
    assert(read() === planned)
    assert(counters.bytesLost.value === 0L)
  }

  test("a file renamed while its range is read: never the other file's lines, never lost") {
    val counters = ReadCounters.register(spark.sparkContext) // starts the session, and its host
    val dir = newDir("swapped")
    Files.write(dir.resolve("app.log"), "a\n".repeat(500).getBytes(UTF_8))
    Files.write(dir.resolve("app.log.1"), "b\n".repeat(500).getBytes(UTF_8))
    val file = dir.resolve("app.log")
    val head = {
      val channel = FileChannel.open(file)
      try Prefixes.md5(channel, 1000).get
      finally channel.close()
    }
    val range =
      FileRange(SparkExecutors.currentHost, file.toString, FileKey.of(file), "id", 0, 1000, head)
    val swapper = new NameSwapper(dir.resolve("app.log"), dir.resolve("app.log.1"), 2)
    try {
      val deadline = System.nanoTime() + 3L * 1000 * 1000 * 1000
      while (System.nanoTime() < deadline) {
        val reader =
          new AofPartitionReader(AofInputPartition(Seq(range)), false, counters, specOf(dir))
        try rows(reader).foreach(r => assert(r.getUTF8String(0).toString === "a"))
        finally reader.close()
      }
    } finally swapper.close()
    // Always there under one of the names: never counted lost.
    assert(counters.bytesLost.value === 0L)
  }

  /** The rows of every batch, each read before the reader moves on. */
  private def rows(reader: AofPartitionReader): Iterator[InternalRow] =
    Iterator.continually(reader).takeWhile(_.next()).flatMap(_.get().rowIterator().asScala)
}
