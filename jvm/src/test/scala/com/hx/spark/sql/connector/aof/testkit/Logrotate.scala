package com.hx.spark.sql.connector.aof.testkit

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

/** The real logrotate, forced, with a config and state file of the test's own. */
final class Logrotate(log: Path, directives: Seq[String]) {
  private val dir = log.getParent
  private val config = dir.getParent.resolve(s"${log.getFileName}.logrotate.conf")
  private val state = dir.getParent.resolve(s"${log.getFileName}.logrotate.state")
  Files.write(
    config,
    (s"$log {" +: "  rotate 1000" +: "  missingok" +: directives.map("  " + _) :+ "}")
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
