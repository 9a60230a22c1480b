package com.hx.spark.sql.connector.aof

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.MainSources

/**
 * The packages depend on each other in one direction, so that each can be read, tested and
 * changed knowing only those below it. A package that names another (an import, or a name written
 * out in full) depends on it; a cycle fails here with its path.
 */
class PackageGraphSuite extends AnyFunSuite {
  private val root = "com.hx.spark.sql.connector.aof"

  /** The package of one source and the packages it names, each as its name below the root. */
  private def dependencies(source: String): (String, Set[String]) = {
    val own = ("""(?m)^package """ + root.replace(".", "\\.") + """(?:\.(\w+))?\s*$""").r
      .findFirstMatchIn(source)
      .map(m => Option(m.group(1)).getOrElse(""))
      .getOrElse(fail(s"no package under $root in:\n${source.take(200)}"))
    val prefix = root.replace(".", "\\.") + """\."""
    val single = (prefix + """(\w+)""").r
    val grouped = (prefix + """\{([^}]*)\}""").r
    val named = single.findAllMatchIn(source).map(_.group(1)).toSet ++
      grouped.findAllMatchIn(source).flatMap(_.group(1).split(",").map(_.trim.split("\\s")(0)))
    // A capitalised name is a class of the root package itself.
    val packages = named.map(n => if (n.headOption.exists(_.isUpper)) "" else n)
    own -> (packages - own)
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

  test("the main packages form a DAG") {
    assert(MainSources.all.size > 10, "run from the project's jvm/ directory")
    val graph = graphOf(MainSources.all.map(_._2))
    assert(graph.keySet.contains("shim") && graph.keySet.contains("files"))
    val found = cycles(graph)
    assert(found.isEmpty, found.map(_.map(name).mkString(" -> ")).mkString("cycles:\n", "\n", ""))
  }

  test("a cycle between packages is caught, with its path") {
    val graph = graphOf(
      Seq(
        s"package $root.stream\n\nimport $root.endpoint.EndpointSpec\n",
        s"package $root.endpoint\n\nimport $root.{files, stream}\n",
        s"package $root.files\n\nclass A\n",
        s"package $root\n\nimport $root.stream.X\nval y: $root.files.B = null\n"
      ))
    assert(graph("") === Set("stream", "files"))
    assert(graph("endpoint") === Set("files", "stream"))
    assert(cycles(graph) === Seq(Seq("stream", "endpoint", "stream")))
  }
}
