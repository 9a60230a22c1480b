package com.hx.spark.sql.connector.aof.files.identity

import java.io.ByteArrayOutputStream
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.zip.GZIPOutputStream

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.compression.{Compression, Decompressed}
import com.hx.spark.sql.connector.aof.files.identity.FileIdentity.{Replaced, Same, Shorter, Verdict}

/**
 * The one rule for "the same file, a copy of it, or another", case by case. What was known is
 * taken of real bytes as a node takes it, and what a file holds now is read from a real file
 * (through its decompression, for a gzip file), as the node and the reader read it.
 */
class FileIdentitySuite extends AnyFunSuite {
  private val Sample = 16
  private val log = (1 to 10).map(i => s"line $i of the log\n").mkString
  private val header = "# app 1.0\n"

  /** What the driver knew of `bytes` when it had read to `pos`. */
  private def known(bytes: String, pos: Long): KnownFile = {
    val channel = channelOf(bytes, gzip = false)
    try {
      val head = Prefixes.md5(channel, math.min(Sample.toLong, bytes.length)).get
      val tail = Prefixes.tail(channel, pos, Sample.toLong).filter(_ => pos > 0)
      KnownFile(FileKey(1, 1), pos, head, tail)
    } finally channel.close()
  }

  private def channelOf(bytes: String, gzip: Boolean): FileChannel = {
    val file = Files.createTempFile("aof-identity-", ".log")
    try {
      Files.write(file, if (gzip) gzipped(bytes) else bytes.getBytes(UTF_8))
      val channel = FileChannel.open(file)
      if (gzip) {
        try Decompressed.open(channel, Compression.Gzip)
        finally channel.close()
      } else channel
    } finally Files.delete(file)
  }

  private def gzipped(s: String): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val gz = new GZIPOutputStream(out)
    gz.write(s.getBytes(UTF_8))
    gz.close()
    out.toByteArray
  }

  /**
   * @param tailLooked whether the bytes before the position were looked at (a planner given an
   *                   answer about another position has only the head)
   */
  private case class Case(
      name: String,
      was: KnownFile,
      now: String,
      ofKey: Verdict,
      ofCopy: Verdict,
      checked: Boolean = true,
      gzip: Boolean = false,
      tailLooked: Boolean = true)

  private val grown = log + "line 11 of the log\n"
  private val rewritten = log.take(Sample) + log.drop(Sample).replace('l', 'L')

  // format: off
  private val cases = Seq(
    Case("the same bytes", known(log, log.length), log, Same, Same),
    Case("grown since", known(log, log.length), grown, Same, Same),
    Case("cut back, its head kept", known(grown, grown.length), log, Shorter, Shorter),
    Case("a copy, compressed", known(log, log.length), log, Same, Same, gzip = true),
    Case("a compressed copy of its start only", known(grown, grown.length), log, Shorter, Shorter, gzip = true),
    Case("replaced: another head", known(log, log.length), "something else entirely\n", Replaced, Replaced),
    Case("rewritten after its head", known(log, log.length), rewritten, Replaced, Replaced),
    Case("rewritten after its head, the tail not looked at", known(log, log.length), rewritten, Same, Same, tailLooked = false),
    Case("a reused inode, shorter than the head", known(log, log.length), "new\n", Replaced, Replaced),
    Case("known shorter than the sample: grown", known(header, header.length), header + log, Same, Same),
    Case("known shorter than the sample: another file with that header", known(header, header.length), header + "other\n", Same, Same),
    Case("known shorter than the sample: truncated, written again", known(header, header.length), "# app 2.0\n", Replaced, Replaced),
    Case("known with no head (empty then)", known("", 0), log, Same, Replaced),
    Case("unchecked: replaced", known(log, log.length), "something else entirely\n" * 20, Same, Replaced, checked = false),
    Case("unchecked: cut back", known(log, log.length), "x\n", Shorter, Replaced, checked = false),
    Case("unchecked: a copy is still told by its bytes", known(log, log.length), grown, Same, Same, checked = false)
  )
  // format: on

  cases.foreach { c =>
    test(c.name) {
      val identity = FileIdentity(c.checked)
      val channel = channelOf(c.now, c.gzip)
      try {
        val size = channel.size()
        def head = Prefixes.md5(channel, c.was.fingerprint.length)
        def tail =
          Some(Prefixes.tail(channel, c.was.floor, Sample.toLong)).filter(_ => c.tailLooked)
        assert(identity.ofKey(c.was, size, head, tail) === c.ofKey, "under its key")
        assert(identity.ofCopy(c.was, size, head, tail) === c.ofCopy, "under another key")
        // The head alone: the rule with the bytes before the position not looked at.
        assert(
          identity.keepsHead(c.was, head) === (identity.ofKey(c.was, size, head, None) != Replaced))
        // A file known by no head is no file's copy: the one rule the planner retires by.
        assert(FileIdentity.copyable(c.was.fingerprint) || c.ofCopy == Replaced)
      } finally channel.close()
    }
  }

  test("a node's answer is judged as the file it describes") {
    val was = known(log, log.length)
    val now = channelOf(grown, gzip = false)
    try {
      val answer = FileMeta(
        "app.log",
        was.key,
        now.size(),
        now.size(),
        Prefixes.md5(now, Sample.toLong).get,
        None,
        floor = Some(was.floor),
        tailAtFloor = Prefixes.tail(now, was.floor, Sample.toLong)
      )
      assert(FileIdentity(checked = true).ofKey(was, answer) === Same)
      val rewrittenTail = answer.copy(tailAtFloor = Some(Fingerprint(Sample.toLong, "0" * 32)))
      assert(FileIdentity(checked = true).ofKey(was, rewrittenTail) === Replaced)
      // An answer about another position says nothing of the bytes before this one.
      assert(FileIdentity(checked = true).ofKey(was, rewrittenTail.copy(floor = Some(3))) === Same)
      val shortHead = known(header, header.length)
      assert(answer.headAt(shortHead.fingerprint.length).isEmpty, "no probe was asked for")
    } finally now.close()
  }
}
