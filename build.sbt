// One source tree, two Spark lines. Spark is `provided`: the connector's JAR carries none of
// Spark's own dependencies (Curator, ZooKeeper, Jackson), it uses the copies Spark ships.
//
// Each Scala version is one Spark line: the JAR is compiled against the oldest Spark of its line
// (so it runs on every later one: the connector uses Spark's public API only). `+` before a task
// (`+aof/test`) runs it for both lines. The suites run on the Spark compiled against, or on the
// JARs of the directory named by AOF_SPARK_JARS_<scala binary version> (`AOF_SPARK_JARS_2_13`):
// a PySpark install's `jars/`, which is how the newest Spark reaches this build (PySpark's wheel
// is out the day of a release, Maven's artifacts may come later).
val sparkCompiled = settingKey[String]("Spark version the JAR is compiled against (oldest)")
val sparkJars = settingKey[Option[File]]("Spark JARs the suites run on, instead of Maven's")

// The versions of each Spark line are listed once, in the Python package (the Makefile and the
// package read them too); the project's version is the Python package's.
val versions: Map[String, String] = {
  val properties = new java.util.Properties
  IO.load(properties, file("python/src/pyspark_aof/versions.properties"))
  properties.stringPropertyNames.toArray.map(k => k.toString -> properties.getProperty(k.toString)).toMap
}
val scala212 = versions("spark3.scala")
val scala213 = versions("spark4.scala")

ThisBuild / organization := "com.hx.spark"
ThisBuild / version := """(?m)^version = "([^"]+)"""".r
  .findFirstMatchIn(IO.read(file("python/pyproject.toml")))
  .map(_.group(1))
  .getOrElse(sys.error("python/pyproject.toml has no version = \"...\" line"))
ThisBuild / scalaVersion := scala212
ThisBuild / crossScalaVersions := Seq(scala212, scala213)

// Spark 3.3+ on Java 17 needs these opens; Spark's own launcher adds the same list.
val java17Opens = Seq(
  "java.lang",
  "java.lang.invoke",
  "java.lang.reflect",
  "java.io",
  "java.net",
  "java.nio",
  "java.util",
  "java.util.concurrent",
  "java.util.concurrent.atomic",
  "sun.nio.ch",
  "sun.nio.cs",
  "sun.security.action",
  "sun.util.calendar"
).map(p => s"--add-opens=java.base/$p=ALL-UNNAMED")

// A test classpath on the Spark of `sparkJars` instead of the Spark compiled against, when given:
// Spark and everything it ships come from there; Maven gives only what the suites add
// (scalatest): one copy of each library on the classpath.
def onSparkJars(classpath: TaskKey[Classpath]): Def.Initialize[Task[Classpath]] = Def.task {
  val all = classpath.value
  val compiledAgainst = (Compile / externalDependencyClasspath).value.files.toSet
  sparkJars.value.fold(all) { dir =>
    val jars = (dir * "*.jar").get
    require(jars.nonEmpty, s"no Spark JARs in $dir")
    all.filterNot(a => compiledAgainst(a.data)) ++ jars.map(Attributed.blank)
  }
}

// How the suites of each project run: on the Spark of `sparkJars` when given, forked, one at a
// time, and failing on any test that did not run.
lazy val sparkTests: Seq[Setting[_]] = Seq(
  Test / dependencyClasspath := onSparkJars(Test / dependencyClasspath).value,
  // What `Test/runMain` runs on (the benchmarks): the same.
  Test / dependencyClasspathAsJars := onSparkJars(Test / dependencyClasspathAsJars).value,
  Test / fork := true,
  Test / javaOptions ++= java17Opens ++ Seq("-Xmx4g", "-XX:+IgnoreUnrecognizedVMOptions"),
  Test / parallelExecution := false,
  // Full stack traces where a test fails, and each line's failures in a report of its own
  // (build/test-failures prints them again at the end of `make test`).
  Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oDF"),
  Test / testReportsDirectory := crossTarget.value / "test-reports",
  // A test cancelled, ignored or pending fails the run: it passes only when every test ran.
  Test / executeTests := {
    val output = (Test / executeTests).value
    val log = streams.value.log
    val notRun = output.events.toSeq.sortBy(_._1).collect {
      case (suite, r) if r.canceledCount + r.ignoredCount + r.skippedCount + r.pendingCount > 0 =>
        s"$suite: ${r.canceledCount} canceled, ${r.ignoredCount} ignored, " +
          s"${r.skippedCount} skipped, ${r.pendingCount} pending"
    }
    notRun.foreach(suite => log.error(s"tests not run: $suite"))
    if (notRun.isEmpty) output else output.copy(overall = TestResult.Failed)
  }
)

lazy val root = (project in file("."))
  .aggregate(aof, realtime)
  .settings(publish / skip := true, crossScalaVersions := Nil)

lazy val aof: Project = (project in file("jvm"))
  .settings(
    name := "spark-aof",
    sparkCompiled := versions(if (scalaBinaryVersion.value == "2.12") "spark3.compiled" else "spark4.compiled"),
    sparkJars := sys.env
      .get("AOF_SPARK_JARS_" + scalaBinaryVersion.value.replace('.', '_'))
      .filter(_.nonEmpty)
      .map(file),
    // Spark 3 runs on Java 8 too; Spark 4 needs Java 17.
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint") ++ {
      if (scalaBinaryVersion.value == "2.12") Seq("-target:jvm-1.8")
      else {
        // What 2.13 and Curator 5 deprecate but 2.12 and Curator 2 (Spark 3) lack a successor
        // for: the same code serves both lines.
        Seq(
          "-release:17",
          "-Wconf:cat=deprecation&msg=JavaConverters|NodeCache|PathChildrenCache:s")
      }
    },
    javacOptions ++= Seq("--release", if (scalaBinaryVersion.value == "2.12") "8" else "17"),
    // Spark brings Scala: as `provided`, `--packages` resolves nothing but this JAR.
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      "org.apache.spark" %% "spark-sql" % sparkCompiled.value % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      // A Kerberos KDC in the test JVM, as Hadoop's MiniKdc runs one.
      "org.apache.kerby" % "kerb-simplekdc" % "2.1.0" % Test
    ) ++ {
      // Kubernetes' API server as Spark's own Kubernetes suites mock it, at the fabric8 version
      // PySpark 4.3 ships; on the Spark 4 line only (src/test/scala-2.13): what is asked of the
      // server does not differ by Spark line. What Spark ships too is left to Spark's copy: an
      // older Netty first on the classpath breaks Spark.
      val shipped = Seq("io.netty", "com.fasterxml.jackson.core", "org.slf4j").map(ExclusionRule(_)) ++
        Seq(
          "io.vertx" -> "vertx-core",
          "io.vertx" -> "vertx-web-common",
          "io.vertx" -> "vertx-auth-common",
          "io.fabric8" -> "kubernetes-client",
          "io.fabric8" -> "kubernetes-client-api",
          "io.fabric8" -> "zjsonpatch",
          "org.yaml" -> "snakeyaml"
        ).map { case (org, name) => ExclusionRule(org, name) }
      if (scalaBinaryVersion.value == "2.12") Nil
      else Seq(("io.fabric8" % "kubernetes-server-mock" % "7.6.1" % Test).excludeAll(shipped: _*))
    },
    Compile / packageDoc / publishArtifact := false,
    sparkTests,
    // A suite the Spark line cannot change (`testkit.Spark4Only`) runs on the newest line only,
    // unless AOF_EVERY_LINE is set (`make test-model`: the model's long form on both lines).
    Test / testOptions ++= {
      if (scalaBinaryVersion.value != "2.12" || sys.env.contains("AOF_EVERY_LINE")) Nil
      else {
        val tag = "com.hx.spark.sql.connector.aof.testkit.Spark4Only"
        Seq(Tests.Argument(TestFrameworks.ScalaTest, "-l", tag))
      }
    },
    // The JAR is built where the Python package ships it from (`publishM2` takes it from there).
    Compile / packageBin / artifactPath := (ThisBuild / baseDirectory).value /
      "python/src/pyspark_aof/jars" / (Compile / packageBin / artifactPath).value.getName,
    // Every build publishes to ~/.m2 again (for `--packages`); a release version would refuse.
    publishM2Configuration := publishM2Configuration.value.withOverwrite(true),
    // The 2.13 JAR holds real-time mode's classes too (see `realtime`).
    Compile / packageBin / mappings ++= Def.taskDyn {
      if (scalaBinaryVersion.value != "2.13") Def.task(Seq.empty[(File, String)])
      else Def.task((realtime / Compile / packageBin / mappings).value)
    }.value,
  )

// Real-time mode (Spark 4.1+): its classes implement interfaces Spark 4.0 lacks, so they are
// compiled apart, against the oldest Spark that has them, and go into the 2.13 JAR beside the
// rest, which stays compiled against 4.0. The connector loads them only where Spark has those
// interfaces (`shim.RealTimeMode`): one JAR, one `--packages` name, for 4.0 to the newest.
// Its sources are the connector's own, in jvm/src/*/scala-spark-4.1; only its build is apart.
lazy val realtime: Project = (project in file("jvm/realtime"))
  .dependsOn(aof % "compile->compile;test->test")
  .settings(
    name := "spark-aof-realtime",
    Compile / scalaSource := (aof / baseDirectory).value / "src/main/scala-spark-4.1",
    Test / scalaSource := (aof / baseDirectory).value / "src/test/scala-spark-4.1",
    scalaVersion := scala213,
    crossScalaVersions := Seq(scala213),
    sparkCompiled := versions("spark4.realtime.compiled"),
    sparkJars := sys.env.get("AOF_SPARK_JARS_2_13").filter(_.nonEmpty).map(file),
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint", "-release:17"),
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      "org.apache.spark" %% "spark-sql" % sparkCompiled.value % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      // The latency benchmark's reference row (`bench.KafkaReference`).
      "org.apache.spark" %% "spark-sql-kafka-0-10" % versions("spark4.kafka.reference") % Test
    ),
    publish / skip := true,
    sparkTests
  )
