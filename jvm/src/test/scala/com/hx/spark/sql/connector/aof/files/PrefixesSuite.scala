package com.hx.spark.sql.connector.aof.files

import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

class PrefixesSuite extends AnyFunSuite {

  // The race with logrotate's copytruncate, timed by the channel: the file is really cut and
  // written again, between the endpoint's look at its size and its read of the head.
  test("a file cut and written past the sample between size and head is looked at again") {
    val file = Files.createTempFile("aof-prefixes-", ".log")
    try {
      Files.write(file, ("old line\n" * 1000).getBytes(UTF_8))
      val fresh = "new line\n" * 20
      var cut = false
      val channel = new CountingChannel(
        FileChannel.open(file),
        () =>
          if (!cut) {
            cut = true
            Files.write(file, fresh.getBytes(UTF_8), StandardOpenOption.TRUNCATE_EXISTING)
          })
      try {
        val (size, head) = Prefixes.sizeAndHead(channel, 64)
        assert(size === fresh.length)
        assert(head === Prefixes.md5(channel, 64).get)
      } finally channel.close()
    } finally Files.delete(file)
  }
}
