package com.hx.spark.sql.connector.aof.files.listing

import java.nio.file.{Files, Path, Paths}
import java.util.Comparator

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class DirectoryGlobSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val root = Files.createTempDirectory("glob-")
  private val dirs = Seq(
    "pods/ns_a_1/app",
    "pods/ns_b_2/app",
    "pods/ns_b_2/side",
    "pods/other_c_3/app",
    "deep/x/y/z")
  dirs.foreach(d => Files.createDirectories(root.resolve(d)))
  Files.createFile(root.resolve("pods/ns_a_1/app.log")) // a file is never a directory named
  Files.createSymbolicLink(root.resolve("pods/linked"), root.resolve("deep/x")) // to y
  Files.createSymbolicLink(root.resolve("deep/x/y/z/up"), root.resolve("deep")) // a loop

  override protected def afterAll(): Unit = {
    val walk = Files.walk(root) // links are not followed: each is deleted as itself
    try walk.sorted(Comparator.reverseOrder[Path]()).forEach(p => Files.delete(p))
    finally walk.close()
  }

  private def named(pattern: String): Set[String] =
    DirectoryGlob
      .of(Paths.get(s"$root/$pattern"))
      .directories()
      .map(d => root.relativize(d).toString)
      .toSet

  private val table: Seq[(String, Set[String])] = Seq(
    "pods" -> Set("pods"),
    "pods/ns_a_1/app" -> Set("pods/ns_a_1/app"),
    "pods/*/app" -> Set("pods/ns_a_1/app", "pods/ns_b_2/app", "pods/other_c_3/app"),
    "pods/ns_*/*" -> Set("pods/ns_a_1/app", "pods/ns_b_2/app", "pods/ns_b_2/side"),
    "pods/ns_?_1/app" -> Set("pods/ns_a_1/app"),
    "pods/*/{app,side}" ->
      Set("pods/ns_a_1/app", "pods/ns_b_2/app", "pods/ns_b_2/side", "pods/other_c_3/app"),
    "pods/[no]*_b_2/*" -> Set("pods/ns_b_2/app", "pods/ns_b_2/side"),
    // `*` follows a link to a directory, as a literal component does.
    "pods/*" -> Set("pods/ns_a_1", "pods/ns_b_2", "pods/other_c_3", "pods/linked"),
    "pods/linked/*" -> Set("pods/linked/y"),
    // `**` is any depth, none included, and never follows a link (deep/x/y/z/up loops).
    "deep/**" -> Set("deep", "deep/x", "deep/x/y", "deep/x/y/z"),
    "deep/**/z" -> Set("deep/x/y/z"),
    "**/app" -> Set("pods/ns_a_1/app", "pods/ns_b_2/app", "pods/other_c_3/app"),
    "pods/**/ns_b_2/**/side" -> Set("pods/ns_b_2/side"),
    "missing/*" -> Set(),
    "missing" -> Set(),
    "pods/*/nothing" -> Set(),
    "pods/ns_a_1/app.log" -> Set()
  )

  table.foreach { case (pattern, expected) =>
    test(s"$pattern names ${if (expected.isEmpty) "no directory" else expected.mkString(", ")}") {
      assert(named(pattern) === expected)
    }
  }

  test("a directory is named by its name as the listing names it, and no other is") {
    val all = dirs.flatMap(d => Iterator.iterate(Paths.get(d))(_.getParent).takeWhile(_ != null))
    table.foreach { case (pattern, expected) =>
      val glob = DirectoryGlob.of(Paths.get(s"$root/$pattern"))
      expected.foreach(d => assert(glob.names(root.resolve(d)), s"$pattern names $d"))
      all.map(_.toString).filterNot(expected).foreach { d =>
        assert(!glob.names(root.resolve(d)), s"$pattern does not name $d")
      }
    }
    val pods = DirectoryGlob.of(Paths.get("/var/log/pods/*/app"))
    assert(pods.names(Paths.get("/var/log/pods/any/app")))
    assert(!pods.names(Paths.get("/var/log/pods/app")))
    assert(!pods.names(Paths.get("/etc")))
    assert(!pods.names(Paths.get("/var/log/pods/a/app/deeper")))
  }

  test("the root is the literal start; only wildcards make a pattern") {
    val glob = DirectoryGlob.of(Paths.get("/var/log/pods/*/app"))
    assert(glob.root === Paths.get("/var/log/pods"))
    assert(glob.isPattern)
    assert(!DirectoryGlob.of(Paths.get("/var/log/pods")).isPattern)
    assert(DirectoryGlob.of(Paths.get("/**")).root === Paths.get("/"))
  }

  test("a directory that goes between two looks is no longer named") {
    val gone = root.resolve("pods/gone_d_4/app")
    Files.createDirectories(gone)
    val glob = DirectoryGlob.of(Paths.get(s"$root/pods/*/app"))
    assert(glob.directories().contains(gone))
    Files.delete(gone)
    Files.delete(gone.getParent)
    assert(!glob.directories().contains(gone))
  }

}
