package com.hx.spark.sql.connector.aof.testkit

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

/** The real logrotate, forced, with a config and state file of the test's own. */
final class Logrotate(logs: Seq[Path], directives: Seq[String]) {
  def this(log: Path, directives: Seq[String]) = this(Seq(log), directives)

  private val first = logs.head
  private val config = first.getParent.getParent.resolve(s"${first.getFileName}.logrotate.conf")
  private val state = first.getParent.getParent.resolve(s"${first.getFileName}.logrotate.state")
  // Logs named in one block are rotated together, then compressed one after the other.
  Files.write(
    config,
    (s"${logs.mkString(" ")} {" +: "  rotate 1000" +: "  missingok" +: directives.map("  " + _) :+
      "}")
      .mkString("", "\n", "\n")
      .getBytes(UTF_8))

  def rotate(): Unit = {
    val process = new ProcessBuilder("logrotate", "-f", "-s", state.toString, config.toString)
      .redirectErrorStream(true)
      .start()
    val output = new String(process.getInputStream.readAllBytes(), UTF_8)
    if (process.waitFor() != 0) throw new IllegalStateException(s"logrotate failed: $output")
  }
}
