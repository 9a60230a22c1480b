package com.hx.spark.sql.connector.aof.files.container

/**
 * A message (or a multi-line record) as it becomes a row: its bytes, `bytes[start, start +
 * length)`, where it starts in its file, its stream and the runtime's time (those of its first
 * line), and whether a line of it was cut to `line.length.max`. Valid until its maker moves on.
 */
abstract class Message {
  protected var array: Array[Byte] = Array.emptyByteArray
  protected var from = 0
  protected var count = 0
  protected var at = 0L
  protected var streamOf: Int = LineChunks.NoStream
  protected var time = 0L
  protected var cut = false

  def bytes: Array[Byte] = array
  def start: Int = from
  def length: Int = count

  /** Where it starts in its file. */
  def offset: Long = at
  def stream: Int = streamOf
  def timeMicros: Long = time

  /** Whether a line of it was cut to `line.length.max`. */
  def truncated: Boolean = cut
}
