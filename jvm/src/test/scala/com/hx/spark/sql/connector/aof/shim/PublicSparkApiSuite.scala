package com.hx.spark.sql.connector.aof.shim

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.MainSources

/**
 * The connector runs on every Spark of its two lines only while it keeps to Spark's public API:
 * internals move between minor versions. A name of Spark's outside this list fails here; one
 * that is needed goes into the `shim` package, with a test there.
 */
class PublicSparkApiSuite extends AnyFunSuite {
  private val public = Seq(
    "org.apache.spark.sql.connector.",
    // The plugin interface Spark documents for a library's metrics (since 3.0).
    "org.apache.spark.api.plugin.",
    "org.apache.spark.sql.types.",
    "org.apache.spark.sql.vectorized.",
    "org.apache.spark.sql.util.CaseInsensitiveStringMap",
    "org.apache.spark.sql.SparkSession",
    "org.apache.spark.sql.ForeachWriter",
    "org.apache.spark.sql.Row",
    "org.apache.spark.sql.sources.DataSourceRegister",
    "org.apache.spark.sql.catalyst.InternalRow",
    "org.apache.spark.unsafe.types.UTF8String",
    "org.apache.spark.unsafe.Platform",
    "org.apache.spark.util.LongAccumulator",
    "org.apache.spark.rdd.RDD",
    "org.apache.spark.FutureAction",
    "org.apache.spark.Partition",
    "org.apache.spark.SparkConf",
    "org.apache.spark.SparkContext",
    "org.apache.spark.SparkFiles",
    "org.apache.spark.TaskContext",
    "org.apache.spark.TaskKilledException"
  )
  // Per file, what it may name besides: the shim's internals, and a logger of Spark's that a
  // filter names (a name in the log configuration, not code; StopWarningsSuite catches a rename).
  private val declared = Map(
    "SparkExecutors.scala" ->
      Seq("org.apache.spark.SparkEnv", "org.apache.spark.status.api.v1.ExecutorSummary"),
    "StopWarnings.scala" -> Seq(
      "org.apache.spark.scheduler.DAGScheduler",
      "org.apache.spark.scheduler.TaskSetManager",
      "org.apache.spark.scheduler.TaskSchedulerImpl",
      "org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2Exec",
      "org.apache.spark.sql.execution.datasources.v2.DataWritingSparkTask",
      "org.apache.spark.util.Utils",
      "org.apache.spark.api.python.PythonWorkerFactory"
    )
  )

  /** Every name of Spark's a file uses, with `import a.{B, C}` read as `a.B` and `a.C`. */
  private def sparkNames(source: String): Seq[String] = {
    val grouped = """(org\.apache\.spark(?:\.\w+)*)\.\{([^}]*)\}""".r
    val single = """org\.apache\.spark(?:\.\w+)+""".r
    val fromGroups = grouped.findAllMatchIn(source).toList.flatMap { m =>
      m.group(2).split(",").map(_.trim.split("\\s")(0)).filter(_.nonEmpty).map(m.group(1) + "." + _)
    }
    fromGroups ++ single.findAllIn(grouped.replaceAllIn(source, "")).toList
  }

  test("the main sources use Spark's public API only, and the files declared here what they may") {
    assert(MainSources.all.nonEmpty, "run from the project's jvm/ directory")
    val outside = for {
      (file, text) <- MainSources.all
      name <- sparkNames(text)
      allowed = public ++ declared.getOrElse(file.getFileName.toString, Nil)
      if !allowed.exists(a => name == a || name.startsWith(a))
    } yield s"${file.getFileName}: $name"
    assert(outside.isEmpty, outside.distinct.mkString("not public API:\n", "\n", ""))
  }

  test("a Spark internal in a source is caught") {
    val names = sparkNames(
      "import org.apache.spark.sql.execution.streaming.{CommitLog, OffsetSeqLog}\n" +
        "val x = org.apache.spark.sql.internal.SQLConf.get\n")
    assert(
      names.toSet === Set(
        "org.apache.spark.sql.execution.streaming.CommitLog",
        "org.apache.spark.sql.execution.streaming.OffsetSeqLog",
        "org.apache.spark.sql.internal.SQLConf.get"
      ))
  }
}
