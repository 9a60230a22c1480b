package com.hx.spark.sql.connector.aof.protocol

import java.nio.file.{Files, Paths}

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper, SerializationFeature}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.PathMistakes
import com.hx.spark.sql.connector.aof.files.listing.DirectoryGlob

/**
 * The rules the Python package applies too, as tables in `tests/tables/` that
 * `tests/python/test_shared_tables.py` holds Python to: the znode layout with the encoding of
 * host names in it, which characters make a directory a glob, and how a shell glob reads as a
 * regex. A change here fails this suite until the tables are written again (`AOF_WRITE_GOLDEN=1`),
 * and then the Python suite until Python follows.
 */
class SharedTablesSuite extends AnyFunSuite {
  private val dir = Paths.get("../tests/tables")
  private val write = sys.env.contains("AOF_WRITE_GOLDEN")
  private val mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)

  // Host names whose znode names are not themselves (a space, '+', '~', '*', '%', '/', ':',
  // IPv6 in both spellings, non-ASCII, a combining accent), one that is, and none.
  private val Hosts = Seq("10.0.0.7", "node one", "a+b", "host~1", "x*y", "100%", "::1", "[::1]") ++
    Seq("ü.example", "a b+c~d*e%f/g:h", "日本", "\ud83d\ude00", "e\u0301", "")

  private val Globs = Seq("*.log", "app?.log.[0-9]", "{app,side}.log*", "a+b(1)^$|.txt") ++
    Seq("[!a]}{,x", "日志*")

  private def table(name: String, made: JsonNode): Unit = {
    val file = dir.resolve(name)
    if (write) {
      Files.createDirectories(dir)
      Files.write(file, mapper.writeValueAsBytes(made) :+ '\n'.toByte)
    }
    assert(mapper.readTree(file.toFile) === made, s"$file: write it again with AOF_WRITE_GOLDEN=1")
  }

  test("the znode layout, and host names in it, as the table holds them") {
    val paths = ZkPaths("/aof/app", "run-7")
    val root = mapper.createObjectNode().put("metaStore", paths.metaStore).put("runId", paths.runId)
    val znodes = root.putObject("znodes")
    Seq(
      "offsets" -> paths.offsets,
      "runs" -> paths.runs,
      "run" -> paths.run,
      "driver" -> paths.driver,
      "latches" -> paths.latches,
      "endpoints" -> paths.endpoints,
      "reports" -> paths.reports,
      "nodes" -> paths.nodes
    ).foreach { case (znode, path) => znodes.put(znode, path) }
    val hosts = root.putArray("hosts")
    Hosts.foreach { host =>
      assert(ZkPaths.decode(ZkPaths.encode(host)) === host)
      hosts
        .addObject()
        .put("host", host)
        .put("encoded", ZkPaths.encode(host))
        .put("latch", paths.latch(host))
        .put("endpoint", paths.endpoint(host))
        .put("report", paths.report(host))
    }
    table("znodes.json", root)
  }

  test("a directory's wildcards and a shell glob as a regex, as the table holds them") {
    val chars = (0x20 until 0x7f).map(_.toChar) ++ Seq('\u00e9', '\uff0a')
    val root = mapper
      .createObjectNode()
      .put("checked", chars.mkString)
      .put("wildcards", chars.filter(c => DirectoryGlob.hasWildcard(s"app$c")).mkString)
    val globs = root.putObject("globs")
    Globs.foreach(glob => globs.put(glob, PathMistakes.globAsRegex(glob)))
    table("globs.json", root)
  }
}
