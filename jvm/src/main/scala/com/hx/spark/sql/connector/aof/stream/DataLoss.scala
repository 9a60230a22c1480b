package com.hx.spark.sql.connector.aof.stream

/** Bytes that went before they were read: the query fails (`fail.on.data.loss`), or says so. */
object DataLoss {

  /** @param what which bytes of which file on which host, and why when known */
  def handle(what: String, failOnDataLoss: Boolean, warn: String => Unit): Unit =
    if (failOnDataLoss) {
      throw new IllegalStateException(
        s"aof: bytes went before they were read: $what. Set fail.on.data.loss=false to log " +
          "and count such losses instead.")
    } else warn(s"aof: bytes went before they were read (deleted, truncated or replaced): $what")
}
