package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.sql.connector.read.streaming.ReadLimit

/**
 * `bytes.max` as a read limit of its own: Spark's row and file limits mean other things, and
 * `Trigger.Once` replaces whatever the source asks for with `ReadAllAvailable`.
 */
final case class ReadMaxBytes(bytesPerFile: Long) extends ReadLimit
