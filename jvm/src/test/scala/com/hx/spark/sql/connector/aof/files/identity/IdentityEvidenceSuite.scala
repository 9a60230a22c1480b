package com.hx.spark.sql.connector.aof.files.identity

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.zip.GZIPOutputStream

import org.apache.commons.codec.digest.DigestUtils.md5Hex
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.compression.Decompressed
import com.hx.spark.sql.connector.aof.testkit.TempDirectories

/** Where a look's evidence of a file's bytes comes from: its answer, else the file, once. */
class IdentityEvidenceSuite extends AnyFunSuite with TempDirectories {
  private val text = "0123456789abcdef\n" * 4 // 68 bytes
  private def md5(bytes: String) = Fingerprint(bytes.length.toLong, md5Hex(bytes.getBytes(UTF_8)))

  private final case class Case(
      name: String,
      length: Long,
      probe: Option[Fingerprint],
      compressed: Boolean,
      expected: Option[Fingerprint])

  // format: off
  private val cases = Seq(
    Case("the answer's head, at its length", 68, None, compressed = false, Some(md5(text))),
    Case("the answer's probe, at its length", 10, Some(Fingerprint(10, "0" * 32)), compressed = false, Some(Fingerprint(10, "0" * 32))),
    Case("read from the file, at another length", 10, None, compressed = false, Some(md5(text.take(10)))),
    Case("longer than the file: none", 69, None, compressed = false, None),
    Case("a compressed file, no decompressor given", 10, None, compressed = true, None)
  )
  // format: on

  cases.foreach { c =>
    test(s"a head: ${c.name}") {
      val file = Files.write(tempDirectory("evidence-").resolve("app.log"), text.getBytes(UTF_8))
      val meta = FileMeta(file.toString, FileKey.of(file), 68, 68, md5(text), c.probe)
      val evidence = new IdentityEvidence(1024, _ => c.compressed)
      try {
        assert(evidence.head(meta, c.length) === c.expected)
        // Read once per look: the file rewritten since changes nothing the look knows.
        Files.write(file, text.toUpperCase.getBytes(UTF_8))
        assert(evidence.head(meta, c.length) === c.expected)
      } finally evidence.close()
    }
  }

  test("a compressed file: its head decompressed as far as asked, no tail") {
    val file = tempDirectory("evidence-").resolve("app.log.gz")
    val gzip = new GZIPOutputStream(Files.newOutputStream(file))
    try gzip.write(text.getBytes(UTF_8))
    finally gzip.close()
    val meta = FileMeta(file.toString, FileKey.of(file), 68, 68, md5(text), None)
    val evidence = new IdentityEvidence(17, _ => true, Decompressed.headMd5)
    try {
      assert(evidence.head(meta, 10) === Some(md5(text.take(10))))
      assert(evidence.tail(meta, 17) === None)
    } finally evidence.close()
  }

  test("a tail: the answer's at its floor or line end, else read from the file once") {
    val file = Files.write(tempDirectory("evidence-").resolve("app.log"), text.getBytes(UTF_8))
    val floorTail = Fingerprint(17, "1" * 32)
    val endTail = Fingerprint(17, "2" * 32)
    val meta = FileMeta(
      file.toString,
      FileKey.of(file),
      68,
      68,
      md5(text),
      None,
      floor = Some(34),
      tailAtFloor = Some(floorTail),
      tailAtLineEnd = Some(endTail))
    val evidence = new IdentityEvidence(17, _ => false)
    try {
      assert(evidence.tail(meta, 34) === Some(floorTail))
      assert(evidence.tail(meta, 68) === Some(endTail))
      assert(evidence.tail(meta, 17) === Some(md5(text.take(17))))
      assert(evidence.tail(meta, 69) === None, "past the end")
      Files.write(file, text.toUpperCase.getBytes(UTF_8))
      assert(evidence.tail(meta, 17) === Some(md5(text.take(17))))
    } finally evidence.close()
    // Gone since the look described it: nothing read, and the file named.
    Files.delete(file)
    val after = new IdentityEvidence(17, _ => false)
    try {
      assert(after.tail(meta, 68) === Some(endTail) && !after.missed)
      assert(after.tail(meta, 17) === None)
      assert(after.missed && after.unread === Set(meta.key))
    } finally after.close()
  }
}
