package com.hx.spark.sql.connector.aof

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.util.regex.Pattern

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.MainSources

/**
 * The packages depend on each other in one direction, so that each can be read, tested and
 * changed knowing only those below it. A package that names another (an import, or a name written
 * out in full) depends on it; a cycle fails here with its path.
 */
class PackageGraphSuite extends AnyFunSuite {
  private val root = "com.hx.spark.sql.connector.aof"

  /**
   * The package of one source and the packages it names, each as its dotted name below the root
   * (`stream`, `files.lines`).
   */
  private def dependencies(source: String): (String, Set[String]) = {
    val own = ("""(?m)^package """ + root.replace(".", "\\.") + """(?:\.([\w.]+))?\s*$""").r
      .findFirstMatchIn(source)
      .map(m => Option(m.group(1)).getOrElse(""))
      .getOrElse(fail(s"no package under $root in:\n${source.take(200)}"))
    val prefix = root.replace(".", "\\.") + """\."""
    val single = (prefix + """([\w.]*\w)""").r
    val grouped = (prefix + """((?:\w+\.)*)\{([^}]*)\}""").r
    // Packages are written in lower case and types capitalised: a name's package is its leading
    // lower-case parts, and a capitalised name right below the root is a class of the root itself.
    def packageOf(parts: Seq[String]): String = parts.takeWhile(!_.head.isUpper).mkString(".")
    val named = single.findAllMatchIn(source).map(m => packageOf(m.group(1).split('.'))).toSet ++
      grouped.findAllMatchIn(source).flatMap { m =>
        val path = m.group(1).split('.').filter(_.nonEmpty).toSeq
        m.group(2).split(",").map(_.trim.split("\\s")(0)).map(n => packageOf(path :+ n))
      }
    own -> (named - own)
  }

  /** The graph's cycles, each as the path that closes it; empty for a DAG. */
  private def cycles(graph: Map[String, Set[String]]): Seq[Seq[String]] = {
    val done = collection.mutable.Set.empty[String]
    val found = collection.mutable.ListBuffer.empty[Seq[String]]
    def visit(node: String, path: List[String]): Unit =
      if (path.contains(node)) found += (node :: path.takeWhile(_ != node) ::: List(node)).reverse
      else if (!done(node)) {
        graph.getOrElse(node, Set.empty).toSeq.sorted.foreach(visit(_, node :: path))
        done += node
      }
    graph.keys.toSeq.sorted.foreach(visit(_, Nil))
    found.toList
  }

  private def graphOf(files: Seq[String]): Map[String, Set[String]] =
    files.map(dependencies).groupBy(_._1).map { case (p, deps) => p -> deps.flatMap(_._2).toSet }

  private def name(p: String): String = if (p.isEmpty) "aof" else p

  /** The graph with each package taken as its top level (`files.lines` as `files`). */
  private def topLevel(graph: Map[String, Set[String]]): Map[String, Set[String]] = {
    def top(p: String): String = p.takeWhile(_ != '.')
    graph.toSeq.groupBy(e => top(e._1)).map { case (p, edges) =>
      p -> (edges.flatMap(_._2).map(top).toSet - p)
    }
  }

  private lazy val main: Map[String, Set[String]] = {
    assert(MainSources.all.size > 10, "run from the project's jvm/ directory")
    graphOf(MainSources.all.map(_._2))
  }

  test("the main packages and the rooms of files/ form a DAG") {
    assert(main.keySet.contains("shim") && main.keySet.contains("files.lines"))
    val found = cycles(main)
    assert(found.isEmpty, found.map(_.map(name).mkString(" -> ")).mkString("cycles:\n", "\n", ""))
  }

  test("the top-level packages form a DAG, each with its rooms taken as one") {
    val found = cycles(topLevel(main))
    assert(found.isEmpty, found.map(_.map(name).mkString(" -> ")).mkString("cycles:\n", "\n", ""))
  }

  test("docs/internals.md has a row for every package and room, each with what it uses") {
    val page = new String(Files.readAllBytes(Paths.get("..", "docs", "internals.md")), UTF_8)
    // | `name/` or `name/room/` or the root | role | uses |
    val cell = "(" + Pattern.quote(root) + """|\w+/(?:\w+/)?)"""
    val row = ("(?m)^\\| `" + cell + """` \|[^|\n]*\|([^|\n]*)\|$""").r
    val rows = row
      .findAllMatchIn(page)
      .map { m =>
        val p = if (m.group(1) == root) "" else m.group(1).stripSuffix("/").replace('/', '.')
        p -> "`(\\w+)`".r.findAllMatchIn(m.group(2)).map(_.group(1)).toSet
      }
      .toMap
    val missing = main.keySet -- rows.keySet
    assert(missing.isEmpty, s"no row in docs/internals.md for ${missing.map(name).mkString(", ")}")
    val stale = rows.keySet.filterNot(p => main.keySet.exists(k => k == p || k.startsWith(p + ".")))
    assert(stale.isEmpty, s"docs/internals.md has rows for no package: ${stale.mkString(", ")}")
    val tops = topLevel(main)
    for ((p, uses) <- rows) {
      val actual = p.split('.') match {
        case Array(parent, _) =>
          main(p).filter(_.startsWith(parent + ".")).map(_.drop(parent.length + 1))
        case _ => tops(p)
      }
      assert(uses === actual, s"docs/internals.md: what ${name(p)} uses")
    }
  }

  test("a cycle between packages is caught, with its path, at either level") {
    val graph = graphOf(
      Seq(
        s"package $root.stream\n\nimport $root.endpoint.EndpointSpec\n",
        s"package $root.endpoint\n\nimport $root.{files, stream}\n",
        s"package $root.files.lines\n\nclass A\n",
        s"package $root.files.scan\n\nimport $root.files.lines.{A, B}\nimport $root.offset.C._\n",
        s"package $root.offset\n\nimport $root.files.lines.A\n",
        s"package $root\n\nimport $root.stream.X\nval y: $root.files.lines.B = null\n"
      ))
    assert(graph("") === Set("stream", "files.lines"))
    assert(graph("endpoint") === Set("files", "stream"))
    assert(graph("files.scan") === Set("files.lines", "offset"))
    assert(cycles(graph) === Seq(Seq("stream", "endpoint", "stream")))
    assert(topLevel(graph)("files") === Set("offset"))
    assert(cycles(topLevel(graph)).contains(Seq("files", "offset", "files")))
  }
}
