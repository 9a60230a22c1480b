package com.hx.spark.sql.connector.aof.files

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

class FileDescriberSuite extends AnyFunSuite {

  // The race with logrotate's copytruncate, timed by the channel (a real logrotate hits it once
  // in many runs): the file is really cut and written again past the sample, before the read of
  // its head or after it. Described from two moments, it had its old size with its new head, or
  // its old size and head and no line (the driver then counted its old bytes lost, though its
  // copy held them).
  Seq(1 -> "before its head is read", 2 -> "after its head is read").foreach { case (read, when) =>
    test(s"a file cut short $when is described again, as it is now") {
      val file = Files.createTempFile("aof-describer-", ".log")
      try {
        Files.write(file, ("old line\n" * 1000).getBytes(UTF_8))
        val describer = new FileDescriber(64, None, None, FileIdentity(checked = true))
        def describe(channel: FileChannel, asked: Option[KnownFile]): FileMeta =
          describer.describe(channel, file, FileStamp.of(file), asked, asked.toSeq, Map.empty)
        val first = {
          val channel = FileChannel.open(file)
          try describe(channel, None)
          finally channel.close()
        }
        val asked = KnownFile(first.key, first.lineEnd, first.fingerprint, first.tailAtLineEnd)
        Files.write(file, ("old line\n" * 1000).getBytes(UTF_8), StandardOpenOption.APPEND)
        val fresh = "new line\n" * 20
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
          assert(meta.size === fresh.length)
          assert(meta.lineEnd === fresh.length)
          assert(meta.fingerprint === Prefixes.md5(channel, 64).get)
        } finally channel.close()
      } finally Files.delete(file)
    }
  }
}
