package com.hx.spark.sql.connector.aof.testkit

import java.io.IOException
import java.net.{InetAddress, ServerSocket}
import java.nio.file.{Files, Paths}

import scala.collection.mutable
import scala.util.{Random, Try}

/**
 * Ports for servers a suite names before they start (a ZooKeeper ensemble's nine, a KDC's).
 * Taken outside the kernel's ephemeral range: a port found free inside it (a bind to port 0) is
 * soon given again to another bind to 0 or to a connection, as the Python suites that run beside
 * these start their servers, and a server then told that port cannot start.
 */
object FreePorts {
  private val given = mutable.Set.empty[Int]

  // The ports outside the ephemeral range (32768-60999 unless set otherwise), the larger side;
  // the whole range of ports where the kernel's range leaves neither side room.
  private val (low, high): (Int, Int) = {
    // Read by lines: a file of /proc says its size is 0, and a read of that size gets one byte.
    val range = Try(
      Files
        .readAllLines(Paths.get("/proc/sys/net/ipv4/ip_local_port_range"))
        .get(0)
        .trim
        .split("\\s+")
        .map(_.toInt)).getOrElse(Array(32768, 60999))
    val below = (math.max(1024, range(0) - 12000), range(0))
    val above = (range(1) + 1, math.min(65536, range(1) + 12001))
    Seq(below, above).maxBy { case (from, until) => until - from } match {
      case (from, until) if until - from >= 1000 => (from, until)
      case _ => (1024, 65536)
    }
  }

  /** A port free on the loopback address now, never given before in this JVM. */
  def next(): Int = synchronized {
    val port = Iterator
      .continually(low + Random.nextInt(high - low))
      .take(1000)
      .find(p => !given(p) && free(p))
      .getOrElse(throw new IllegalStateException(s"no free port in [$low, $high)"))
    given += port
    port
  }

  private def free(port: Int): Boolean =
    try {
      new ServerSocket(port, 1, InetAddress.getLoopbackAddress).close()
      true
    } catch { case _: IOException => false }
}
