package com.hx.spark.sql.connector.aof.model

import java.io.FileOutputStream
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.util.zip.GZIPOutputStream

import scala.collection.mutable
import scala.util.Random

/**
 * A container's log as containerd and the kubelet write it, and the model of the messages in it.
 * The runtime writes CRI lines to `0.log` through a descriptor it keeps: each message of stdout
 * and stderr in chunks of a few bytes (`P` then `F`), the two streams' chunks interleaved. The
 * kubelet's rotation renames `0.log` to `0.log.<n>` (wherever the streams' messages are), the
 * runtime may write a chunk more to the renamed file before it reopens `0.log`; every rotation
 * but the newest is gzipped through a `.tmp`; the oldest beyond `MaxFiles` are deleted. Nothing
 * here reads.
 */
/**
 * @param records whether it is read as multi-line records (each message one here): a stream's
 *                last record is complete only at its next message
 */
final class KubeletWorld(dir: Path, rnd: Random, records: Boolean) {
  import KubeletWorld._

  /** A message written: its id, stream, whole text and where its first chunk went. */
  final case class Message(id: String, stream: String, text: String, file: String, offset: Long)

  private val live = dir.resolve("0.log")
  private var runtime = open(live)
  private var runtimeFile = "0.log"
  private var rotations = 0
  // Rotated files, oldest first, by name; and the message ids each holds a chunk of.
  private val rotated = mutable.ArrayBuffer.empty[String]
  private val idsIn = mutable.Map.empty[String, mutable.Set[String]]
  // Each stream's message being written: its chunks not written yet.
  private val pending = mutable.Map.empty[String, (String, List[String])]
  private var count = 0
  private var chunksWritten = 0L
  // Whether the file being written has a position no message is open across, and for records,
  // one after which both streams wrote a whole message: a file all inside one message (longer
  // than the kubelet's 10 MiB) or one record is beyond what is joined.
  private var cleanSinceRotation = false
  private var startedSinceClean = Set.empty[String]
  private val afterClean = mutable.Map.empty[String, Boolean]
  val written: mutable.ArrayBuffer[Message] = mutable.ArrayBuffer.empty

  /**
   * The next operation, drawn from the world as it is: chunks most often. A renamed file is
   * deleted only once `delivered` says every message with a chunk in it was read.
   */
  def nextOp(delivered: Seq[String] => Boolean): String = {
    val ready = cleanSinceRotation && (!records || startedSinceClean.size == 2)
    val rotations = Seq("rotate", "rotate with a late chunk").filter(_ => ready)
    val ops = Seq.fill(20)("chunk") ++ rotations ++
      Seq("compress").filter(_ => compressible.nonEmpty) ++
      Seq("delete").filter(_ => rotated.size > MaxFiles && delivered(idsOf(rotated.head)))
    ops(rnd.nextInt(ops.size))
  }

  def apply(op: String): Unit = op match {
    case "chunk" => chunk()
    case "rotate" => rotate(lateChunk = false)
    case "rotate with a late chunk" => rotate(lateChunk = true)
    case "compress" => compress(compressible.head)
    case "delete" =>
      Files.delete(dir.resolve(rotated.head))
      rotated.remove(0)
  }

  /** Every message's last chunk written, then the runtime stopped. */
  def settle(): Unit = {
    while (pending.nonEmpty) chunk(pending.keys.toSeq.sorted.head)
    runtime.close()
  }

  def close(): Unit = runtime.close()

  private def idsOf(name: String): Seq[String] = idsIn.get(name).fold(Seq.empty[String])(_.toSeq)

  // The kubelet compresses every rotation but the newest.
  private def compressible: Seq[String] = rotated.dropRight(1).filterNot(_.endsWith(".gz")).toSeq

  private def chunk(): Unit = chunk(Seq("stdout", "stderr")(rnd.nextInt(2)))

  private def chunk(stream: String): Unit = {
    val (id, chunks) = pending.getOrElse(
      stream, {
        afterClean(stream) = cleanSinceRotation
        count += 1
        val id = s"m$count"
        // Most lines fit a chunk; a long one now and then is split.
        val length = if (rnd.nextInt(4) == 0) Chunk + rnd.nextInt(4 * Chunk) else rnd.nextInt(4)
        val text = s"$id " + rnd.alphanumeric.take(length).mkString + " end"
        val offset = runtime.size()
        written += Message(id, stream, text, runtimeFile, offset)
        (id, text.grouped(Chunk).toList)
      }
    )
    val last = chunks.tail.isEmpty
    chunksWritten += 1
    val time = Start.plusMillis(chunksWritten)
    val line = s"$time $stream ${if (last) "F" else "P"} ${chunks.head}\n"
    runtime.write(ByteBuffer.wrap(line.getBytes(UTF_8)))
    idsIn.getOrElseUpdate(runtimeFile, mutable.Set.empty) += id
    // A record starts once its first message is whole: the one before it is then complete.
    if (last && afterClean.getOrElse(stream, false)) startedSinceClean += stream
    if (last) pending -= stream else pending(stream) = id -> chunks.tail
    cleanSinceRotation ||= pending.isEmpty
  }

  private def rotate(lateChunk: Boolean): Unit = {
    rotations += 1
    val name = f"0.log.$rotations%08d"
    Files.move(live, dir.resolve(name))
    runtimeFile = name
    rotated += name
    if (lateChunk) chunk()
    runtime.close()
    runtime = open(live)
    runtimeFile = "0.log"
    cleanSinceRotation = false
    startedSinceClean = Set.empty
    afterClean.clear()
  }

  private def compress(name: String): Unit = {
    val tmp = dir.resolve(s"$name.tmp")
    val out = new GZIPOutputStream(new FileOutputStream(tmp.toFile))
    try out.write(Files.readAllBytes(dir.resolve(name)))
    finally out.close()
    Files.move(tmp, dir.resolve(s"$name.gz"))
    Files.delete(dir.resolve(name))
    rotated(rotated.indexOf(name)) = s"$name.gz"
    idsIn(s"$name.gz") = idsIn.getOrElse(name, mutable.Set.empty)
  }

  private def open(path: Path): FileChannel = FileChannel.open(
    path,
    StandardOpenOption.CREATE,
    StandardOpenOption.WRITE,
    StandardOpenOption.APPEND)
}

object KubeletWorld {
  // The runtime's split: small, so that most messages are several chunks.
  val Chunk = 16
  val MaxFiles = 4
  // The runtime's time of the first chunk; a millisecond more for each after it.
  private val Start = java.time.Instant.parse("2026-11-28T10:00:00.000000001Z")
}
