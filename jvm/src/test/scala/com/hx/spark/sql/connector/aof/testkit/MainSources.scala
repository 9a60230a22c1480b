package com.hx.spark.sql.connector.aof.testkit

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import scala.collection.JavaConverters._

/** The connector's main Scala sources, for suites that hold rules over the code itself. */
object MainSources {

  /**
   * Each source file with its text, real-time mode's (`scala-spark-4.1`) too; none when not run
   * from the project's `jvm/` directory.
   */
  lazy val all: Seq[(Path, String)] = Seq("src/main/scala", "src/main/scala-spark-4.1").flatMap {
    name =>
      val dir = Paths.get(name)
      if (!Files.isDirectory(dir)) Nil
      else {
        val walk = Files.walk(dir)
        try {
          walk.iterator().asScala.filter(_.toString.endsWith(".scala")).toList.map { file =>
            file -> new String(Files.readAllBytes(file), UTF_8)
          }
        } finally walk.close()
      }
  }
}
