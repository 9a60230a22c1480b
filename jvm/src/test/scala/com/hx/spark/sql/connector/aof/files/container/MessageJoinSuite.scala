package com.hx.spark.sql.connector.aof.files.container

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardOpenOption}

import scala.collection.mutable.ArrayBuffer

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.lines.LineReader

/** Chunks joined into messages, each stream on its own, and where positions are clean. */
class MessageJoinSuite extends AnyFunSuite {
  private val T = "2026-11-28T10:00:00Z"
  private def cri(stream: String, tag: String, message: String) = s"$T $stream $tag $message\n"

  private case class Message(text: String, offset: Long, stream: String, truncated: Boolean)

  /** The messages of `lines` read from 0, with those drained at the end, and the clean ends. */
  private def messages(
      lines: Seq[String],
      lineLengthMax: Int = 1 << 20): (Seq[Message], Seq[Long]) = {
    val file = Files.createTempFile("join", ".log")
    Files.write(file, lines.mkString.getBytes(UTF_8))
    val channel = FileChannel.open(file, StandardOpenOption.READ)
    try {
      val reader = new LineReader(channel, 0, Files.size(file), 1 << 20)
      val join = new MessageJoin(LineFormat.Cri, lineLengthMax)
      val found = ArrayBuffer.empty[Message]
      val clean = ArrayBuffer.empty[Long]
      def add() = found += Message(
        new String(join.bytes, join.start, join.length, UTF_8),
        join.offset,
        LineFormat.Cri.streamName(join.stream),
        join.truncated)
      while (reader.next()) {
        if (join.take(reader)) add()
        if (join.isClean) clean += reader.lineEnd
      }
      while (join.drain()) add()
      (found.toList, clean.toList)
    } finally {
      channel.close()
      Files.delete(file)
    }
  }

  test("a stream's chunks join into one message at its first chunk's offset") {
    val lines = Seq(cri("stdout", "P", "ab"), cri("stdout", "P", "cd"), cri("stdout", "F", "ef"))
    val (found, clean) = messages(lines)
    assert(found === Seq(Message("abcdef", 0, "stdout", false)))
    assert(clean === Seq(lines.map(_.length).sum.toLong))
  }

  test("stdout and stderr interleaved are joined each on its own") {
    val lines = Seq(
      cri("stdout", "P", "out-1 "),
      cri("stderr", "F", "err whole"),
      cri("stderr", "P", "err-1 "),
      cri("stdout", "F", "out-2"),
      cri("stderr", "F", "err-2"),
      cri("stdout", "F", "out alone")
    )
    val at = lines.scanLeft(0L)(_ + _.length)
    val (found, clean) = messages(lines)
    assert(
      found === Seq(
        Message("err whole", at(1), "stderr", false),
        Message("out-1 out-2", at(0), "stdout", false),
        Message("err-1 err-2", at(2), "stderr", false),
        Message("out alone", at(5), "stdout", false)
      ))
    assert(clean === Seq(at(5), at(6)))
  }

  test("a message is cut to line.length.max, its chunks counted once as truncated") {
    val lines = Seq(cri("stdout", "P", "abcd"), cri("stdout", "F", "efgh"), cri("stdout", "F", "x"))
    val (found, _) = messages(lines, lineLengthMax = 6)
    assert(found.map(m => m.text -> m.truncated) === Seq("abcdef" -> true, "x" -> false))
  }

  test("what is open at the range's end completes there, in the order of first chunks") {
    val lines = Seq(cri("stderr", "P", "e"), cri("stdout", "P", "o"), cri("stdout", "F", "k"))
    val (found, clean) = messages(lines)
    assert(found.map(_.text) === Seq("ok", "e"))
    assert(clean.isEmpty)
  }

  test("a line not of the format is a message of its own, counted, and joins nothing") {
    val lines = Seq(cri("stdout", "P", "a"), "not cri\n", cri("stdout", "F", "b"))
    val file = Files.createTempFile("join", ".log")
    Files.write(file, lines.mkString.getBytes(UTF_8))
    val channel = FileChannel.open(file, StandardOpenOption.READ)
    val join = new MessageJoin(LineFormat.Cri, 1 << 20)
    try {
      val reader = new LineReader(channel, 0, Files.size(file), 1 << 20)
      val found = Iterator
        .continually(reader.next())
        .takeWhile(identity)
        .filter(_ => join.take(reader))
        .map(_ => new String(join.bytes, join.start, join.length, UTF_8) -> join.stream)
        .toList
      assert(found === Seq("not cri" -> LineChunks.NoStream, "ab" -> LineChunks.Stdout))
      assert(join.malformed === 1)
    } finally {
      channel.close()
      Files.delete(file)
    }
  }
}
