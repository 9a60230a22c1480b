package com.hx.spark.sql.connector.aof.testkit

import java.io.ByteArrayOutputStream
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Path

/**
 * Journal files written by systemd's own code: `systemd-journal-remote` (Debian's package of
 * that name) appends entries given in the journal exported format to `file`, making it if needed,
 * as journald would. `env` sets systemd's switches (`SYSTEMD_JOURNAL_COMPACT=0`, say).
 */
final class JournalWriter(val file: Path, env: Map[String, String] = Map.empty) {
  private var realtime = 1796601335000000L

  /** Appends one entry per field list, in order; a value of bytes goes as a binary field. */
  def append(entries: Seq[Seq[(String, Any)]]): Unit = {
    val exported = new ByteArrayOutputStream
    entries.foreach { fields =>
      realtime += 1000
      exported.write(s"__REALTIME_TIMESTAMP=$realtime\n__MONOTONIC_TIMESTAMP=$realtime\n".getBytes)
      exported.write(s"_BOOT_ID=${JournalWriter.BootId}\n".getBytes)
      fields.foreach {
        case (name, text: String) => exported.write(s"$name=$text\n".getBytes(UTF_8))
        case (name, bytes: Array[Byte]) =>
          val size = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(bytes.length)
          exported.write(s"$name\n".getBytes(UTF_8))
          exported.write(size.array())
          exported.write(bytes)
          exported.write('\n')
        case (name, other) => throw new IllegalArgumentException(s"$name: $other")
      }
      exported.write('\n')
    }
    val builder = new ProcessBuilder(JournalWriter.Remote, s"--output=$file", "-")
      .redirectErrorStream(true)
    env.foreach { case (k, v) => builder.environment().put(k, v) }
    val process = builder.start()
    process.getOutputStream.write(exported.toByteArray)
    process.getOutputStream.close()
    val output = new String(process.getInputStream.readAllBytes(), UTF_8)
    if (process.waitFor() != 0) throw new IllegalStateException(s"journal-remote: $output")
  }
}

object JournalWriter {
  val BootId = "0123456789abcdef0123456789abcdef"
  private val Remote = "/lib/systemd/systemd-journal-remote"
}
