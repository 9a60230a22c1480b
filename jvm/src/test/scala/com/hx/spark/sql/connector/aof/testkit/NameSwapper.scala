package com.hx.spark.sql.connector.aof.testkit

import java.nio.file.{Files, Path}

/**
 * Swaps the names of two files every `intervalMs` until closed, three renames in a row as a
 * rotation makes them. Unlike a rotation it gives a file back a name it had: a check stalled
 * for a whole swap could be fooled, so keep the interval well above a scheduling hiccup.
 */
final class NameSwapper(a: Path, b: Path, intervalMs: Long) extends AutoCloseable {
  @volatile private var swapping = true
  private val thread = new Thread(() =>
    while (swapping) {
      Files.move(a, a.resolveSibling("swap"))
      Files.move(b, a)
      Files.move(a.resolveSibling("swap"), b)
      Thread.sleep(intervalMs)
    })
  thread.start()

  override def close(): Unit = {
    swapping = false
    thread.join()
  }
}
