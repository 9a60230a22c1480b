// One source tree for the connector. Spark is `provided`: the connector's JAR carries none of
// Spark's own dependencies (Curator, ZooKeeper, Jackson), it uses the copies Spark ships.
val sparkVersion = settingKey[String]("Spark version compiled and tested against")

ThisBuild / organization := "com.hx.spark"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.12.18"

// Spark 3.3+ on Java 17 needs these opens; Spark's own launcher adds the same list.
val java17Opens = Seq(
  "java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio",
  "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "sun.nio.ch", "sun.nio.cs",
  "sun.security.action", "sun.util.calendar"
).map(p => s"--add-opens=java.base/$p=ALL-UNNAMED")

lazy val root = (project in file("."))
  .aggregate(aof)
  .settings(publish / skip := true)

lazy val aof = (project in file("jvm"))
  .settings(
    name := "spark-aof",
    sparkVersion := "3.3.4",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint", "-target:jvm-1.8"),
    javacOptions ++= Seq("--release", "8"),
    // Spark brings Scala: as `provided`, `--packages` resolves nothing but this JAR.
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      "org.apache.spark" %% "spark-sql" % sparkVersion.value % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    Compile / packageDoc / publishArtifact := false,
    // Every build publishes to ~/.m2 again (for `--packages`); a release version would refuse.
    publishM2Configuration := publishM2Configuration.value.withOverwrite(true),
    Test / fork := true,
    Test / javaOptions ++= java17Opens ++ Seq("-Xmx4g", "-XX:+IgnoreUnrecognizedVMOptions"),
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oDF")
  )
