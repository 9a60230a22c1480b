package com.hx.spark.sql.connector.aof.files.scan

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{
  FileIdentity, FileMeta, FileStamp, KnownFile, NodeRequest, Prefixes
}
import com.hx.spark.sql.connector.aof.files.lines.CountingChannel

class FileDescriberSuite extends AnyFunSuite {
  private def request(asked: Option[KnownFile]) =
    new NodeRequest(asked.toSeq, Map.empty, 64, FileIdentity(checked = true))

  // The race with logrotate's copytruncate, timed by the channel (a real logrotate hits it once
  // in many runs): the file is really cut and written again past the sample, before the read of
  // its head or after it. Described from two moments, it had its old size with its new head, or
  // its old size and head and no line (the driver then counted its old bytes lost, though its
  // copy held them). Written again past its old size, its size tells nothing: its head does.
  for {
    (read, when) <- Seq(1 -> "before its head is read", 2 -> "after its head is read")
    (lines, past) <- Seq(20 -> "", 3000 -> " and written past its old size")
  } {
    test(s"a file cut short$past $when is described as it was at one moment") {
      val file = Files.createTempFile("aof-describer-", ".log")
      try {
        Files.write(file, ("old line\n" * 1000).getBytes(UTF_8))
        val describer = new FileDescriber(64, None, None, FileIdentity(checked = true))
        def describe(channel: FileChannel, asked: Option[KnownFile]): FileMeta =
          describer.describe(channel, file, FileStamp.of(file), request(asked))
        val first = {
          val channel = FileChannel.open(file)
          try describe(channel, None)
          finally channel.close()
        }
        val asked = KnownFile(first.key, first.lineEnd, first.fingerprint, first.tailAtLineEnd)
        Files.write(file, ("old line\n" * 1000).getBytes(UTF_8), StandardOpenOption.APPEND)
        val fresh = "new line\n" * lines
        var reads = 0
        val channel = new CountingChannel(
          FileChannel.open(file),
          () => {
            reads += 1
            if (reads == read) {
              Files.write(file, fresh.getBytes(UTF_8), StandardOpenOption.TRUNCATE_EXISTING)
            }
          })
        try {
          val meta = describe(channel, Some(asked))
          // Of one state of the file as it is now: its head, and its lines up to a size it had.
          assert(meta.fingerprint === Prefixes.md5(channel, 64).get)
          assert(meta.tailAtLineEnd === Prefixes.tail(channel, meta.lineEnd, 64))
          assert(meta.lineEnd === meta.size && meta.size <= fresh.length)
          if (lines == 20) assert(meta.size === fresh.length) // never the size it had before
        } finally channel.close()
      } finally Files.delete(file)
    }
  }
}
