package com.hx.spark.sql.connector.aof.files.records

import java.util.ArrayDeque

import com.hx.spark.sql.connector.aof.files.container.{LineChunks, MessageJoin}

/**
 * Messages grouped into multi-line records ([[RecordRule]]), each stream's on its own: a Java
 * stack trace a pod prints on stderr is one record, whatever its stdout printed meanwhile.
 *
 * A record is complete when its stream's next message starts a record, at the range's end
 * ([[finish]]), and, for a runtime's lines, once a later message's runtime time passed its last
 * by the flush timeout: so a stream gone quiet does not hold the other's records back, and the
 * decision rests on the file's bytes alone, the same for every reader. Complete records wait in
 * order of completion until taken.
 */
final class RecordJoin(rule: RecordRule) {
  private val streams = rule.format.streamIds
  private val open = Array.fill(streams.size)(new RecordBuffer)
  private val lastTime = new Array[Long](streams.size)
  private val ready = new ArrayDeque[RecordBuffer]()
  private val spare = new ArrayDeque[RecordBuffer]()
  private var taken: Option[RecordBuffer] = None

  /** Takes the current message of `m`; the records it completes are then ready. */
  def add(m: MessageJoin): Unit = {
    if (rule.format.byRuntime && m.stream != LineChunks.NoStream) {
      val before = m.timeMicros - rule.flushMs * 1000L
      streams.foreach { s =>
        if (!open(s).isEmpty && lastTime(s) <= before) complete(s)
      }
    }
    val s = m.stream
    if (!open(s).isEmpty && rule.startsRecord(m, open(s).recordBytes)) complete(s)
    if (open(s).isEmpty) open(s).begin(m) else open(s).append(m)
    lastTime(s) = m.timeMicros
  }

  /** At the range's end: every record still open is complete, the first started first. */
  def finish(): Unit =
    streams.filterNot(open(_).isEmpty).sortBy(open(_).offset).foreach(complete)

  /** Where the first record not complete yet starts; MaxValue when none is open. */
  def openFrom: Long = streams.foldLeft(Long.MaxValue)((m, s) => m min openFrom(s))

  /** Where the stream's record not complete yet starts; MaxValue when none is open. */
  def openFrom(stream: Int): Long = if (open(stream).isEmpty) Long.MaxValue else open(stream).offset

  /** Whether a record is ready to be taken. */
  def hasReady: Boolean = !ready.isEmpty

  /** Where the first complete record not taken yet starts; MaxValue when none. */
  def readyFrom: Long = if (ready.isEmpty) Long.MaxValue else ready.peekFirst().offset

  /** The next complete record: valid until the next call. */
  def take(): RecordBuffer = {
    taken.foreach(spare.addLast)
    taken = Some(ready.pollFirst())
    taken.get
  }

  private def complete(s: Int): Unit = {
    ready.addLast(open(s))
    open(s) = if (spare.isEmpty) new RecordBuffer else spare.pollFirst()
    open(s).clear()
  }
}
