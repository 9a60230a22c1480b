package com.hx.spark.sql.connector.aof.config

import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.cleanup.Cleanup
import com.hx.spark.sql.connector.aof.files.container.LineFormat
import com.hx.spark.sql.connector.aof.files.filter.LineFilter
import com.hx.spark.sql.connector.aof.files.lines.LineEnding
import com.hx.spark.sql.connector.aof.files.listing.{PathPattern, SourceFiles}
import com.hx.spark.sql.connector.aof.files.rows.{FileHeader, PathColumns}

class AofOptionsSuite extends AnyFunSuite {
  private def parse(options: (String, String)*)(session: (String, String)*): AofOptions =
    AofOptions.parse(options.toMap, session.toMap)

  private val path = "path" -> "/var/log/app/service.log.*"

  test("defaults are the original connector's") {
    val o = parse(path)()
    assert(o.files === SourceFiles(Seq(PathPattern("/var/log/app", "service.log.*"))))
    assert(o.zookeeperAddress === None)
    assert(o.startingOffsets === StartingOffsets.Earliest)
    assert(o.bytesMax === None)
    assert(o.metaStore === "/aof/var/log/app")
    assert(o.metaAwaitTimeoutMs === 3000L)
    assert(o.read.identity.checked)
    assert(o.md5SampleLength === 1024)
  }

  test("every option of options.json is read when a query is defined") {
    // An option read only beside another is reached by a set that has the other.
    val sets = Seq(Map(path), Map(path, "zookeeper.ssl.enabled" -> "true"))
    val asked = sets.flatMap { options =>
      val reader = new OptionReader(options)
      try AofOptions.read(reader)
      catch { case _: IllegalArgumentException => () } // a set refused may still have asked
      reader.keysAsked
    }.toSet
    val never = AofOptionSpecs.All.map(_.key).filterNot(asked)
    assert(never.isEmpty, s"options.json's options no query reads: ${never.mkString(", ")}")
  }

  test("session conf spark.aof.<key> applies, and an explicit option wins over it") {
    val fromSession =
      parse(path)("spark.aof.starting.offsets" -> "latest", "spark.aof.bytes.max" -> "10")
    assert(fromSession.startingOffsets === StartingOffsets.Latest)
    assert(fromSession.bytesMax === Some(10L))
    val explicit =
      parse(path, "Starting.Offsets" -> "earliest")("spark.aof.starting.offsets" -> "latest")
    assert(explicit.startingOffsets === StartingOffsets.Earliest)
  }

  private val invalid = Seq(
    Seq("starting.offsets" -> "middle") -> "starting.offsets",
    Seq("bytes.max" -> "0") -> "bytes.max",
    Seq("bytes.max" -> "lots") -> "bytes.max",
    Seq("meta.await.timeout" -> "-5") -> "meta.await.timeout",
    Seq("md5.check.enabled" -> "yes") -> "md5.check.enabled",
    Seq("md5.sample.length" -> "99999999999") -> "md5.sample.length",
    Seq("zookeeper.address" -> "zk1") -> "zookeeper.address",
    Seq("meta.store" -> "relative/path") -> "meta.store",
    Seq("partition.bytes.max" -> "0") -> "partition.bytes.max",
    Seq("line.length.max" -> "x") -> "line.length.max",
    Seq("fail.on.data.loss" -> "maybe") -> "fail.on.data.loss",
    Seq("zookeeper.session.timeout" -> "0") -> "zookeeper.session.timeout",
    Seq("zookeeper.auth.user" -> "a:b", "zookeeper.auth.password" -> "p") -> "zookeeper.auth.user",
    Seq("zookeeper.auth.user" -> "alone") -> "zookeeper.auth.password",
    Seq("node.name.env" -> "$NODE_NAME") -> "node.name.env",
    Seq("zookeeper.auth.password" -> "alone") -> "zookeeper.auth.user",
    Seq("multiline.start" -> "^(unclosed") -> "multiline.start",
    Seq("multiline.continuation" -> "") -> "multiline.continuation",
    Seq("multiline.start" -> "^a", "multiline.continuation" -> "^b") -> "multiline.continuation",
    Seq("multiline.start" -> "^a", "multiline.bytes.max" -> "0") -> "multiline.bytes.max",
    Seq("multiline.flush.timeout" -> "500") -> "multiline.start",
    Seq("multiline.bytes.max" -> "4096") -> "multiline.continuation",
    // A single name is refused: a misspelt manager must not be taken for a node.
    Seq("nodes" -> "yran") -> "nodes",
    Seq("nodes" -> "[]") -> "nodes",
    Seq("nodes" -> "[\"a\", 1]") -> "nodes",
    Seq("nodes" -> "[\"a b\"]") -> "nodes",
    Seq("nodes.selector" -> "logs=true") -> "nodes",
    Seq("nodes.await.timeout" -> "1000") -> "nodes",
    Seq("nodes" -> "[\"a\"]", "nodes.url" -> "http://m:8080") -> "nodes.url",
    Seq("nodes" -> "standalone", "nodes.selector" -> "x") -> "nodes.selector",
    Seq("nodes" -> "yarn", "nodes.url" -> "http://rm:8088") -> "nodes.url",
    Seq("nodes" -> "kubernetes") -> "node.name.env",
    Seq("nodes" -> "standalone", "nodes.url" -> "master:8080") -> "nodes.url",
    Seq("nodes" -> "yarn", "nodes.refresh.interval" -> "60") -> "nodes.refresh.interval",
    Seq("nodes" -> "[\"a\"]", "nodes.await.timeout" -> "0") -> "nodes.await.timeout",
    Seq("batch.bytes.min" -> "0") -> "batch.bytes.min",
    Seq("batch.bytes.min" -> "-1") -> "batch.bytes.min",
    Seq("batch.bytes.min" -> "1MB") -> "batch.bytes.min",
    Seq("batch.wait.max" -> "15", "batch.bytes.min" -> "1000") -> "batch.wait.max",
    Seq("batch.wait.max" -> "-1m", "batch.bytes.min" -> "1000") -> "batch.wait.max",
    Seq("batch.wait.max" -> "0s", "batch.bytes.min" -> "1000") -> "batch.wait.max",
    Seq("batch.wait.max" -> "5m") -> "batch.bytes.min"
  )

  invalid.foreach { case (options, key) =>
    test(s"a bad $key (${options.head._2}) is refused with a message naming it") {
      val e = intercept[IllegalArgumentException](parse(path +: options: _*)())
      assert(e.getMessage.contains(s"'$key'"), e.getMessage)
    }
  }

  test("multi-line records: a rule, its regex kept as given, and the limits it scans within") {
    assert(parse(path)().read.grouping === None)
    val rule =
      parse(path, "multiline.continuation" -> "^ ", "bytes.max" -> "1000")().read.grouping.get
    assert(rule.pattern === Some("^ ") && !rule.patternStarts) // a regex's spaces are part of it
    assert((rule.bytesMax, rule.flushMs, rule.lineLengthMax) === ((1048576, 2000L, 1048576)))
    assert(rule.scanWindow === Some(4000L))
    val start = parse(path, "multiline.start" -> "^\\d", "multiline.flush.timeout" -> "50")()
    assert(
      start.read.grouping.map(r => (r.patternStarts, r.flushMs, r.scanWindow)) ===
        Some((true, 50L, None)))
  }

  test("nodes: a list of names, or a cluster manager to ask with its selector and period") {
    assert(parse(path)().nodes === None)
    val listed = parse(path, "nodes" -> "[\"10.0.0.7\", \"node-2\"]")()
    assert(listed.nodes === Some(Nodes.Listed(Set("10.0.0.7", "node-2"))))
    assert(listed.nodesAwaitTimeoutMs === 300000L)
    val yarn = parse(path, "nodes" -> "YARN", "nodes.selector" -> "logs")()
    assert(yarn.nodes === Some(Nodes.Discovered(ClusterManager.Yarn, Some("logs"), None, 60000L)))
    val kubernetes = parse(
      path,
      "nodes" -> "kubernetes",
      "node.name.env" -> "NODE_NAME",
      "nodes.refresh.interval" -> "30s",
      "nodes.url" -> "https://10.0.0.1:6443")("spark.aof.nodes.await.timeout" -> "5000")
    assert(
      kubernetes.nodes === Some(
        Nodes.Discovered(ClusterManager.Kubernetes, None, Some("https://10.0.0.1:6443"), 30000L)))
    assert(kubernetes.nodesAwaitTimeoutMs === 5000L)
  }

  test("path must be given, absolute, and end in a valid regex") {
    assert(intercept[IllegalArgumentException](parse()()).getMessage.contains("'path' is required"))
    Seq("relative/x.log", "/var/log/", "/var/log/[unclosed").foreach { bad =>
      val e = intercept[IllegalArgumentException](parse("path" -> bad)())
      assert(e.getMessage.contains("'path'"), e.getMessage)
    }
  }

  test("the directory part of path may hold wildcards; a bad glob is refused naming path") {
    val options = parse("path" -> "/var/log/pods/*_*/{app,side}/**/0\\.log.*")()
    assert(options.files.paths.map(_.directory) === Seq("/var/log/pods/*_*/{app,side}/**"))
    val e = intercept[IllegalArgumentException](parse("path" -> "/var/log/[pods/0.log")())
    assert(e.getMessage.contains("'path'") && e.getMessage.contains("glob"), e.getMessage)
  }

  test("ZooKeeper credentials are kept together and never printed") {
    val o = parse(path, "zookeeper.auth.user" -> "aof", "zookeeper.auth.password" -> "s3cret")()
    assert(o.zookeeperSecurity.digest === Some(ZooKeeperAuth("aof", "s3cret")))
    assert(!o.toString.contains("s3cret"))
    assert(parse(path)().zookeeperSecurity === ZooKeeperSecurity())
  }

  test(
    "TLS and SASL options: a store turns TLS on, one login, an external ZooKeeper, no secret shown") {
    val zk = "zookeeper.address" -> "zk1:2281"
    val o = parse(
      path,
      zk,
      "zookeeper.ssl.truststore.location" -> "ca.pem",
      "zookeeper.ssl.keystore.location" -> "client.p12",
      "zookeeper.ssl.keystore.password" -> "k3y",
      "zookeeper.ssl.keystore.type" -> "PKCS12",
      "zookeeper.sasl.user" -> "aof",
      "zookeeper.sasl.password" -> "s3cret"
    )()
    val tls = o.zookeeperSecurity.tls.get
    assert(
      tls.keyStore === Some(
        StoreFile("zookeeper.ssl.keystore", "client.p12", Some("k3y"), Some("pkcs12"))))
    assert(tls.trustStore.map(_.location) === Some("ca.pem") && tls.hostnameVerification)
    assert(o.zookeeperSecurity.sasl === Some(ZooKeeperSasl.Digest("aof", "s3cret")))
    assert(o.zookeeperSecurity.authenticated)
    assert(!o.toString.contains("s3cret") && !o.toString.contains("k3y"), o.toString)
    assert(parse(path, zk, "zookeeper.ssl.enabled" -> "true")().zookeeperSecurity.tls.nonEmpty)

    def refused(options: (String, String)*): String =
      intercept[IllegalArgumentException](parse(path +: options: _*)()).getMessage
    assert(
      refused("zookeeper.ssl.truststore.location" -> "ca.pem").contains(
        "set 'zookeeper.address' too"))
    assert(refused(zk, "zookeeper.sasl.user" -> "aof").contains("'zookeeper.sasl.password' is not"))
    assert(
      refused(zk, "zookeeper.ssl.keystore.password" -> "k3y")
        .contains("'zookeeper.ssl.keystore.location' is not"))
    assert(
      refused(zk, "zookeeper.ssl.enabled" -> "false", "zookeeper.ssl.truststore.location" -> "a")
        .contains("is false but a key or trust store is set"))
    assert(
      refused(
        zk,
        "zookeeper.sasl.section" -> "Client",
        "zookeeper.sasl.kerberos.principal" -> "aof@EXAMPLE.COM",
        "zookeeper.sasl.kerberos.keytab" -> "aof.keytab").contains("are both set"))
    val store = "zookeeper.ssl.keystore.location" -> "a.p7b"
    assert(refused(zk, store, "zookeeper.ssl.keystore.type" -> "p7b").contains("'jks' or 'pkcs12'"))
  }

  test("resume.from.backup needs a ZooKeeper login: an open store's backup could be anyone's") {
    val zk = "zookeeper.address" -> "zk1:2181"
    val resume = "resume.from.backup" -> "true"
    val e = intercept[IllegalArgumentException](parse(path, zk, resume)())
    assert(e.getMessage.contains("'resume.from.backup'"), e.getMessage)
    assert(e.getMessage.contains("'zookeeper.auth.user' and 'zookeeper.auth.password'"))
    val login = Seq("zookeeper.auth.user" -> "aof", "zookeeper.auth.password" -> "secret")
    assert(parse(Seq(path, zk, resume) ++ login: _*)().resumeFromBackup)
    // The embedded server is the query's alone.
    assert(parse(path, resume)().resumeFromBackup)
  }

  test("a valid connect string with a chroot is accepted") {
    assert(parse(path, "zookeeper.address" -> "zk1:2181,zk2:2181/aof")().zookeeperAddress.nonEmpty)
  }

  test("format: a runtime's lines are read as records of one message, flushed by time too") {
    val cri = parse(path, "format" -> "CRI", "multiline.flush.timeout" -> "500")().read.grouping.get
    assert((cri.format, cri.pattern, cri.flushMs) === ((LineFormat.Cri, None, 500L)))
    val both = parse(path, "format" -> "docker", "multiline.start" -> "^\\S")().read.grouping.get
    assert((both.format, both.pattern) === ((LineFormat.Docker, Some("^\\S"))))
    assert(parse(path, "format" -> "text")().read.grouping === None)
    val e = intercept[IllegalArgumentException](parse(path, "format" -> "json")())
    assert(e.getMessage.contains("'text' or 'cri' or 'docker'"), e.getMessage)
  }

  test("header.lines: a regex for text lines, one a row; refused with a format or records") {
    assert(parse(path, "header.lines" -> "^#")().read.header === Some(FileHeader("^#")))
    assert(parse(path)().read.header === None)
    Seq(
      Seq("format" -> "cri") -> "'format' cri",
      Seq("multiline.start" -> "^\\d") -> "multi-line records").foreach { case (other, named) =>
      val e =
        intercept[IllegalArgumentException](parse(Seq(path, "header.lines" -> "^#") ++ other: _*)())
      assert(e.getMessage.contains("'header.lines'") && e.getMessage.contains(named), e.getMessage)
    }
    val e = intercept[IllegalArgumentException](parse(path, "header.lines" -> "^(#")())
    assert(e.getMessage.contains("'header.lines'"), e.getMessage)
  }

  test("encoding and line.separator: a charset the JVM has, a separator that cannot overlap") {
    assert(parse(path)().read.ending === LineEnding.Default)
    assert(parse(path, "encoding" -> " utf-16le ")().read.ending === LineEnding("UTF-16LE"))
    assert(parse(path, "encoding" -> "latin1")().read.ending === LineEnding("ISO-8859-1"))
    assert(parse(path, "line.separator" -> "\r")().read.ending === LineEnding("UTF-8", Some("\r")))
    assert(parse(path, "line.separator" -> " ")().read.ending.separator === Some(" "))
    def refused(options: (String, String)*): String =
      intercept[IllegalArgumentException](parse(path +: options: _*)()).getMessage
    assert(
      refused("encoding" -> "klingon").startsWith("Invalid value 'klingon' for option 'encoding'"))
    assert(refused("encoding" -> "x-JISAutoDetect").contains("cannot write a newline"))
    val overlapping = refused("line.separator" -> "--")
    assert(overlapping.startsWith("Invalid value '--' for option 'line.separator'"), overlapping)
    assert(overlapping.contains("overlap"))
    assert(refused("line.separator" -> "").contains("'line.separator'"))
    val runtime = refused("format" -> "cri", "encoding" -> "UTF-16LE")
    assert(runtime.contains("'format' cri") && runtime.contains("remove 'encoding'"), runtime)
  }

  test("cleanup: delete, or archive into a directory no path reads; refused half-set") {
    assert(parse(path)().cleanup === None)
    assert(parse(path, "cleanup" -> "delete")().cleanup === Some(Cleanup(None, 300000L)))
    assert(
      parse(path, "cleanup" -> "ARCHIVE", "cleanup.archive.dir" -> "/srv/archive/")().cleanup ===
        Some(Cleanup(Some("/srv/archive"), 300000L)))
    assert(
      parse(path, "cleanup" -> "delete", "cleanup.after" -> "1h")().cleanup.map(_.afterMs) ===
        Some(3600000L))
    def refused(options: (String, String)*): String =
      intercept[IllegalArgumentException](parse(options: _*)()).getMessage
    assert(refused(path, "cleanup" -> "archive").contains("'cleanup.archive.dir'"))
    assert(refused(path, "cleanup.after" -> "1h").contains("'cleanup'"))
    assert(refused(path, "cleanup" -> "delete", "cleanup.archive.dir" -> "/a").contains("archive"))
    assert(refused(path, "cleanup" -> "archive", "cleanup.archive.dir" -> "a").contains("absolute"))
    val reread = refused(
      "path" -> "/var/log/*/app.log.*",
      "cleanup" -> "archive",
      "cleanup.archive.dir" -> "/var/log/archive")
    assert(reread.startsWith("Invalid value '/var/log/archive' for option 'cleanup.archive.dir'"))
    assert(
      parse(
        "path" -> "/var/log/app/app.log.*",
        "cleanup" -> "archive",
        "cleanup.archive.dir" -> "/var/log/app/archive")().cleanup.nonEmpty,
      "a directory without wildcards lists no directory below it"
    )
  }

  test("path.columns: named groups, `_` and Python's (?P<...>) too; refused without one") {
    val kubelet = "/var/log/pods/(?<namespace>[^_/]+)_(?P<pod>[^_/]+)_(?<pod_uid>[^/]+)/([^/]+)/"
    val columns = parse(path, "path.columns" -> kubelet)().read.pathColumns.get
    assert(columns.names === Seq("namespace", "pod", "pod_uid"))
    val file = "/var/log/pods/shop_web-7d9f_0f1e-2a/nginx/0.log.20261128-100000.gz"
    assert(columns.values(file) === Seq(Some("shop"), Some("web-7d9f"), Some("0f1e-2a")))
    assert(columns.values("/var/log/other/0.log") === Seq(None, None, None))
    val escaped = PathColumns("""\(x\)[(](?<a>\Q(?<no>\E)(b)?(?<c>c)?""")
    assert(escaped.names === Seq("a", "c"))
    assert(escaped.values("(x)((?<no>b") === Seq(Some("(?<no>"), None))
    Seq(
      "/var/(log)/" -> "it names no group",
      "(?<a>x)(?<a>y)" -> "a group name appears twice (a, a)",
      "(?<a>[)" -> "Unclosed character class").foreach { case (bad, why) =>
      val e = intercept[IllegalArgumentException](parse(path, "path.columns" -> bad)())
      assert(e.getMessage.contains("'path.columns'") && e.getMessage.contains(why), e.getMessage)
    }
  }

  test("the README's options table is the generated one") {
    val readme =
      new String(Files.readAllBytes(Paths.get("..", "README.md").toAbsolutePath.normalize), "UTF-8")
    assert(
      readme.contains(markdownTable),
      "README.md's options table is stale; paste in:\n" + markdownTable
    )
  }

  /** The options table in Markdown, as the README shows it. */
  private def markdownTable: String = {
    val header = "| option | default | meaning |\n| --- | --- | --- |\n"
    header + AofOptionSpecs.All
      .map(o => s"| `${o.key}` | `${o.default}` | ${o.doc} |")
      .mkString("\n") + "\n"
  }

  test("several paths as a JSON array, each checked; the store is named by the first") {
    val o = parse("path" -> """["/var/log/app/.*\\.log", " /srv/*/logs/access\\.log "]""")()
    assert(
      o.files.paths === Seq(
        PathPattern("/var/log/app", ".*\\.log"),
        PathPattern("/srv/*/logs", "access\\.log")))
    assert(o.metaStore === "/aof/var/log/app")
    val relative =
      intercept[IllegalArgumentException](parse("path" -> """["/var/log/app/.*", "logs/.*"]""")())
    assert(relative.getMessage.startsWith("Invalid value 'logs/.*' for option 'path'"))
    // Not a JSON array of strings: one path, and not an absolute one.
    Seq("[]", "[1]", """["/a/b", """, """[["/a/b"]]""").foreach { bad =>
      val e = intercept[IllegalArgumentException](parse("path" -> bad)())
      assert(
        e.getMessage.startsWith(s"Invalid value '${bad.trim}' for option 'path'"),
        e.getMessage)
    }
  }

  test("exclude takes one regex or several, each compiled; a bad one names the option and where") {
    assert(parse(path)().files.exclude === Nil)
    assert(parse(path, "exclude" -> "\\.gz$")().files.exclude === Seq("\\.gz$"))
    val two = parse(path, "exclude" -> """["\\.gz$", "/debug/"]""")()
    assert(two.files.exclude === Seq("\\.gz$", "/debug/"))
    assert(parse(path, "exclude" -> "[0-9]+")().files.exclude === Seq("[0-9]+"))
    val e = intercept[IllegalArgumentException](parse(path, "exclude" -> """["ok", "(a"]""")())
    assert(
      e.getMessage === "Invalid value '(a' for option 'exclude' (or 'spark.aof.exclude'): " +
        "expected a valid Java regex (Unclosed group at index 2).")
  }

  test("ignore.older is a whole number and its unit, held in milliseconds") {
    assert(parse(path)().ignoreOlderMs === None)
    val given = Map("24h" -> 86400000L, " 90s " -> 90000L, "1500ms" -> 1500L, "7d" -> 604800000L)
    given.foreach { case (raw, ms) =>
      assert(parse(path, "ignore.older" -> raw)().ignoreOlderMs === Some(ms), raw)
    }
    Seq("24", "1.5h", "-1h", "0s", "24 h", "24H", "106751991167301d").foreach { bad =>
      val e = intercept[IllegalArgumentException](parse(path, "ignore.older" -> bad)())
      assert(
        e.getMessage === s"Invalid value '${bad.trim}' for option 'ignore.older' (or " +
          "'spark.aof.ignore.older'): expected a duration such as 30s, 15m, 24h or 7d " +
          "(units ms, s, m, h, d).")
    }
  }

  test("batch.bytes.min waits batch.wait.max at most, 15 minutes unless set; off by default") {
    assert(parse(path)().batchMinimum === None)
    assert(
      parse(path, "batch.bytes.min" -> "1048576")().batchMinimum ===
        Some(BatchMinimum(1048576L, 900000L)))
    val both = parse(path, "batch.wait.max" -> "90s")("spark.aof.batch.bytes.min" -> "4096")
    assert(both.batchMinimum === Some(BatchMinimum(4096L, 90000L)))
    // Above what bounds a batch too: it counts all there is to read, as Kafka's minimum does.
    assert(
      parse(path, "batch.bytes.min" -> "2000", "batch.bytes.max" -> "1000")().batchMinimum
        .map(_.bytes) === Some(2000L))
    val alone = intercept[IllegalArgumentException](parse(path, "batch.wait.max" -> "5m")())
    assert(
      alone.getMessage === "Option 'batch.wait.max' is how long a batch waits for " +
        "'batch.bytes.min' new bytes, which is not set: set it too, or remove 'batch.wait.max'.")
    val unitless = intercept[IllegalArgumentException](
      parse(path, "batch.bytes.min" -> "1000", "batch.wait.max" -> "15")())
    assert(unitless.getMessage.startsWith("Invalid value '15' for option 'batch.wait.max'"))
    assert(unitless.getMessage.contains("a duration such as 30s, 15m"))
  }

  test("include.lines and exclude.lines make a line filter, only when one is set") {
    assert(parse(path)().read.lineFilter === None)
    val filter = parse(path, "include.lines" -> """["ERROR", "FATAL"]""", "exclude.lines" -> " ")()
    assert(filter.read.lineFilter === Some(LineFilter(Seq("ERROR", "FATAL"), Seq(" "))))
    val e = intercept[IllegalArgumentException](parse(path, "exclude.lines" -> "a{")())
    assert(e.getMessage.contains("'exclude.lines'") && e.getMessage.contains("at index"))
  }
}
