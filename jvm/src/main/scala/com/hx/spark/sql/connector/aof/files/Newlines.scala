package com.hx.spark.sql.connector.aof.files

/** Finds `\n`: the reader's inner loop, eight bytes at a time ([[ByteSearch.find]]). */
object Newlines {

  /** Index of the first `\n` in `bytes[from, until)`, or `until` when there is none. */
  def find(bytes: Array[Byte], from: Int, until: Int): Int =
    ByteSearch.find(bytes, from, until, '\n')
}
