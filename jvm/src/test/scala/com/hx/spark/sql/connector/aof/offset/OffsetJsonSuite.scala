package com.hx.spark.sql.connector.aof.offset

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.{FileKey, Fingerprint}

class OffsetJsonSuite extends AnyFunSuite {
  private val file = FileOffset(
    "/var/log/app/service.log",
    FileKey(2049L, 5L << 33),
    3L,
    0L,
    7L << 31,
    Fingerprint(1024L, "abc"))
  private val offset = AofOffset(
    Map("10.0.0.2" -> HostOffsets(4L, Map(file.fileId -> file)), "10.0.0.1" -> HostOffsets.Empty))

  test("offsets survive a JSON round trip, with positions and inodes past 32 bits") {
    assert(AofOffset.fromJson(offset.json) === offset)
  }

  test("equal offsets give equal JSON whatever the map order") {
    val reordered = AofOffset(offset.hosts.toSeq.reverse.toMap)
    assert(reordered.json === offset.json)
  }

  test("an unknown version is refused with advice") {
    val e = intercept[IllegalStateException](AofOffset.fromJson("""{"version":9,"hosts":{}}"""))
    assert(e.getMessage.contains("new checkpoint"))
  }
}
