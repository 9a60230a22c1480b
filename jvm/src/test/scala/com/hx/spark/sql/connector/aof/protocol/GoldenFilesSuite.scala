package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.driver.OffsetBackup
import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopy
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, Fingerprint, KnownFile}
import com.hx.spark.sql.connector.aof.offset.{
  AofOffset, FileOffset, HostOffsets, OpenTail, RetiredFile
}

/**
 * The formats of `docs/protocol.md`, held to golden files that the Python suites decode too: a
 * change here fails this suite until the files are written again (`AOF_WRITE_GOLDEN=1`), and then
 * the Python suites say whether `pyspark-aof status` still reads them.
 */
class GoldenFilesSuite extends AnyFunSuite {
  private val dir = Paths.get("../docs/protocol")
  private val write = sys.env.contains("AOF_WRITE_GOLDEN")
  private val mapper = new ObjectMapper()
  private val key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
  private def md5(c: Char) = c.toString * 32

  private val request = Request(
    "request-2",
    Seq(
      KnownFile(
        FileKey(2049, 12),
        4096,
        Fingerprint(1024, md5('a')),
        Some(Fingerprint(1024, md5('b')))),
      KnownFile(FileKey(2049, 13), 0, Fingerprint(0, md5('c')), None)
    ),
    // The answer it is a change from: the host's last answer the driver took.
    Some("answer-1"),
    Seq(FileKey(2049, 11)),
    Map("2049:11:1" -> KnownFile(FileKey(2049, 11), 2048, Fingerprint(1024, md5('g'))))
  )

  private val answer = Answer(
    "request-2",
    Seq(
      FileMeta(
        "/var/log/app/app.log",
        FileKey(2049, 12),
        9000,
        8990,
        Fingerprint(1024, md5('a')),
        Some(Fingerprint(100, md5('d'))),
        Some(4096L),
        Some(Fingerprint(1024, md5('b'))),
        Some(Fingerprint(1024, md5('e')))
      ),
      FileMeta(
        "/var/log/app/app.log.1",
        FileKey(2049, 14),
        4096,
        4096,
        Fingerprint(1024, md5('a')),
        None,
        copyOf = Some(FileKey(2049, 12))),
      FileMeta(
        "/var/log/app/locked.log",
        FileKey(2049, 15),
        10,
        0,
        Fingerprint.Empty,
        None,
        unreadable = Some("Permission denied")),
      // Multi-line records: `lineEnd` is where the last complete record ends.
      FileMeta(
        "/var/log/app/trace.log",
        FileKey(2049, 17),
        70000,
        65000,
        Fingerprint(1024, md5('f')),
        None,
        Some(0L),
        cuts = Seq(120, 4000, 8100, 16300, 32700)),
      // A copy of a file the driver retired (by file id).
      FileMeta(
        "/var/log/app/app.log.2",
        FileKey(2049, 18),
        3000,
        3000,
        Fingerprint(1024, md5('g')),
        None,
        copyOfRetired = Some("2049:11:1")),
      // A container runtime's file reopened amid a message, read after the renamed one's tail.
      FileMeta(
        "/var/log/pods/shop_web_0f1e/nginx/0.log",
        FileKey(2049, 19),
        400,
        400,
        Fingerprint(400, md5('h')),
        None,
        continues = Some(FileKey(2049, 20)))
    ),
    Some("answer-1"),
    Seq(FileKey(2049, 11)),
    unlisted = Some("not listed: an example of the field"),
    retired = Seq("2049:11:1"),
    // This answer's own id (the host answers a standing request again as its files change),
    // and the last calls to look it had answered, at every host and at this one.
    name = "answer-2",
    look = 3L,
    pulled = 5L
  )

  private val offsets = AofOffset(
    Map(
      "10.0.0.7" -> HostOffsets(
        3,
        Seq(
          FileOffset(
            "/var/log/app/app.log",
            FileKey(2049, 12),
            2,
            0,
            4096,
            Fingerprint(1024, md5('a')),
            Some(Fingerprint(1024, md5('b'))),
            9000),
          FileOffset("/var/log/app/new.log", FileKey(2049, 16), 0, 0, 0, Fingerprint(0, md5('c'))),
          // Read after bytes 300 to its position of the file it continues (a runtime's reopen).
          FileOffset(
            "/var/log/pods/shop_web_0f1e/nginx/0.log",
            FileKey(2049, 19),
            4,
            0,
            400,
            Fingerprint(400, md5('h')),
            continues = Some(OpenTail("2049:12:2", 300)))
        )
          .map(f => f.fileId -> f)
          .toMap,
        Map(
          "2049:11:1" -> RetiredFile(
            FileOffset(
              "/var/log/app/app.log.1",
              FileKey(2049, 11),
              1,
              0,
              2048,
              Fingerprint(1024, md5('g')),
              None,
              3000),
            1,
            "request-1"))
      )))

  private val manifest = ("4f3a", 3, 2500000)

  private def golden(name: String, bytes: => Array[Byte]): Array[Byte] = {
    val file = dir.resolve(name)
    if (write) Files.write(file, bytes)
    Files.readAllBytes(file)
  }

  private def tree(bytes: Array[Byte]): JsonNode = mapper.readTree(bytes)
  private def payload(sealedMessage: Array[Byte]): JsonNode =
    tree(Gzip.decompress(MessageSeal.open(sealedMessage, key), Long.MaxValue))

  test("the run key of the golden messages") {
    assert(new String(golden("key.txt", key.getBytes(UTF_8)), UTF_8).trim === key)
  }

  test("a request: what this build writes, as the golden file holds it") {
    val sealedMessage = golden("request.bin", Messages.encode(request, key))
    assert(Messages.decodeRequest(sealedMessage, key) === request)
    val json = golden("request.json", mapper.writeValueAsBytes(payload(sealedMessage)))
    assert(payload(sealedMessage) === tree(json))
    assert(payload(Messages.encode(request, key)) === tree(json))
  }

  test("a response: what this build writes, as the golden file holds it") {
    val sealedMessage = golden("response.bin", Messages.encode(answer, key))
    assert(Messages.decodeAnswer(sealedMessage, key) === answer)
    val json = golden("response.json", mapper.writeValueAsBytes(payload(sealedMessage)))
    assert(payload(sealedMessage) === tree(json))
    assert(payload(Messages.encode(answer, key)) === tree(json))
  }

  test("a response's newer fields, absent from the golden one, are read back") {
    val cleaned = answer.copy(
      removed = Seq(FileKey(2049, 9)),
      notRemoved = 2,
      ignored = 1,
      closest = Seq("/var/log/app/App.log"),
      unmatchedCopies = Map("2049:8:0" -> UnmatchedCopy("/var/log/app/app.log.1", 4096))
    )
    assert(Messages.decodeAnswer(Messages.encode(cleaned, key), key) === cleaned)
  }

  test("the offset backup: the checkpoint's JSON, compressed") {
    val backup = golden("offsets.bin", OffsetBackup.encode(offsets.json()))
    assert(AofOffset.fromJson(OffsetBackup.decode(backup)) === offsets)
    val json = golden("offsets.json", offsets.json().getBytes(UTF_8))
    assert(tree(OffsetBackup.decode(backup).getBytes(UTF_8)) === tree(json))
    assert(tree(offsets.json().getBytes(UTF_8)) === tree(json))
  }

  test("a value in parts: the manifest in its znode") {
    val (generation, count, length) = manifest
    val head = golden("manifest.bin", ZnodeValues.manifest(generation, count, length))
    assert(ZnodeValues.parsed(head) === Some(manifest))
    golden("manifest.json", s"""["$generation", $count, $length]""".getBytes(UTF_8))
    assert(ZnodeValues.parsed(Messages.encode(request, key)) === None)
  }

  test("the nodes to read and those unread, for status") {
    val value = golden("nodes.json", NodesValue.encode(Some(3), Seq("node-3", "node-2")))
    assert(NodesValue.decode(value) === ((Some(3), Seq("node-2", "node-3"))))
    assert(NodesValue.decode(NodesValue.encode(None, Nil)) === ((None, Nil)))
  }

}
