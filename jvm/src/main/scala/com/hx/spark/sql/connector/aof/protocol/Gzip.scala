package com.hx.spark.sql.connector.aof.protocol

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, OutputStream}
import java.util.zip.{GZIPInputStream, GZIPOutputStream}

/** The compression of every value the source keeps in ZooKeeper: messages and the backup. */
object Gzip {

  /** What `write` writes, compressed; `write` may close the stream it is given. */
  def compress(write: OutputStream => Unit): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new GZIPOutputStream(bytes)
    try write(out)
    finally out.close()
    bytes.toByteArray
  }

  /** The bytes `compressed` holds, refused when they would exceed `maxBytes` (a zip bomb). */
  def decompress(compressed: Array[Byte], maxBytes: Long): Array[Byte] = {
    val in = new GZIPInputStream(new ByteArrayInputStream(compressed))
    try {
      val out = new ByteArrayOutputStream()
      val buffer = new Array[Byte](64 * 1024)
      var n = in.read(buffer)
      while (n >= 0) {
        out.write(buffer, 0, n)
        require(out.size() <= maxBytes, s"aof: a value expands beyond $maxBytes bytes")
        n = in.read(buffer)
      }
      out.toByteArray
    } finally in.close()
  }
}
