package com.hx.spark.sql.connector.aof.testkit

import java.io.Closeable
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

/**
 * A real `systemd-journald`, alone in a mount namespace of its own (no systemd needed): its
 * sockets on a private /run/systemd, its volatile journal in `runtime` (seen there as
 * /run/log/journal) and its persistent one in `persistent` (/var/log/journal, written once
 * [[flush]] asks). Commands that talk to it ([[log]], `journalctl`) run in its namespace.
 */
final class Journald(root: Path) extends Closeable {
  val runtime: Path = Files.createDirectories(root.resolve("run-log-journal"))
  val persistent: Path = Files.createDirectories(root.resolve("var-log-journal"))
  private val script =
    """mkdir -p /run/systemd /run/log/journal /var/log/journal &&
      |mount -t tmpfs tmpfs /run/systemd && mkdir -p /run/systemd/journal &&
      |mount --bind "$1" /run/log/journal && mount --bind "$2" /var/log/journal &&
      |exec /lib/systemd/systemd-journald""".stripMargin
  private val process = new ProcessBuilder(
    "unshare",
    "--mount",
    "--propagation",
    "private",
    "sh",
    "-c",
    script,
    "sh",
    runtime.toString,
    persistent.toString)
    .redirectErrorStream(true)
    .redirectOutput(root.resolve("journald.log").toFile)
    .start()
  Polling.eventually(s"journald's socket (its output: $root/journald.log)", 30000) {
    Files.exists(Path.of(s"/proc/${process.pid()}/root/run/systemd/journal/socket"))
  }

  /** The directory of this machine's files in `dir` (`runtime` or `persistent`). */
  def files(dir: Path): Path = dir.resolve(Files.readString(Path.of("/etc/machine-id")).trim)

  /** Logs each line as an entry of `identifier`, through journald's stdout socket. */
  def log(identifier: String, lines: Seq[String], priority: String = "info"): Unit =
    run(lines.mkString("", "\n", "\n"), "systemd-cat", "-t", identifier, "-p", priority)

  /** Runs `command` in journald's namespace, with `input`; its output, or an error. */
  def run(input: String, command: String*): String = {
    val nsenter = Seq("nsenter", "--mount", "--target", process.pid().toString) ++ command
    val p = new ProcessBuilder(nsenter: _*).redirectErrorStream(true).start()
    p.getOutputStream.write(input.getBytes(UTF_8))
    p.getOutputStream.close()
    val output = new String(p.getInputStream.readAllBytes(), UTF_8)
    if (p.waitFor() != 0) throw new IllegalStateException(s"${command.mkString(" ")}: $output")
    output
  }

  /** `journalctl` with `args`, in journald's namespace. */
  def journalctl(args: String*): String = run("", "journalctl" +: args: _*)

  override def close(): Unit = {
    process.destroy()
    process.waitFor()
  }
}

object Journald {

  /** `body` with a journald started in `root`, stopped after it. */
  def running[T](root: Path)(body: Journald => T): T = {
    val journald = new Journald(root)
    try body(journald)
    finally journald.close()
  }
}
