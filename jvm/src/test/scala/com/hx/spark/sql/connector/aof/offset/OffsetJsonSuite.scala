package com.hx.spark.sql.connector.aof.offset

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}

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

  test("retired files survive a round trip, whole and on a snapshot, where only they changed") {
    val retired = Map(file.fileId -> RetiredFile(file, 2, "request-9"))
    val withRetired = AofOffset(Map("10.0.0.2" -> HostOffsets(4L, Map.empty, retired)))
    assert(AofOffset.fromJson(withRetired.json) === withRetired)
    val snapshot = new OffsetSnapshot("000000000001", offset.hosts)
    val onSnapshot =
      AofOffset(offset.hosts.updated("10.0.0.1", HostOffsets(0L, Map.empty, retired)))
    val json = AofOffset(onSnapshot.hosts, Some(snapshot)).json()
    assert(json.contains("request-9") && !json.contains("10.0.0.2"))
    assert(OffsetJson.read(json, _ => snapshot).hosts === onSnapshot.hosts)
    val noneAgain = AofOffset(offset.hosts, Some(new OffsetSnapshot("2", onSnapshot.hosts)))
    assert(OffsetJson.read(noneAgain.json(), _ => noneAgain.base.get).hosts === offset.hosts)
  }

  test("an unknown version is refused with advice") {
    val e = intercept[IllegalStateException](AofOffset.fromJson("""{"version":9,"hosts":{}}"""))
    assert(e.getMessage.contains("new checkpoint"))
  }

  test("an offset on a snapshot writes what changed since it and reads back whole") {
    val idle = file.copy(path = "/var/log/app/idle.log", key = FileKey(2049L, 6L))
    val gone = file.copy(key = FileKey(2049L, 7L))
    val snapshot = new OffsetSnapshot(
      "000000000007",
      Map(
        "a" -> HostOffsets(4L, Map(file.fileId -> file, idle.fileId -> idle, gone.fileId -> gone)),
        "b" -> HostOffsets(1L, Map(idle.fileId -> idle)),
        "c" -> HostOffsets(2L, Map.empty)
      )
    )
    val moved = file.copy(pos = file.pos + 10)
    val now = Map(
      "a" -> HostOffsets(4L, Map(moved.fileId -> moved, idle.fileId -> idle)),
      "c" -> HostOffsets(2L, Map.empty),
      "d" -> HostOffsets(1L, Map(idle.fileId -> idle)))
    val json = AofOffset(now, Some(snapshot)).json()

    assert(json.startsWith("""{"version":2,"snapshot":"000000000007","hosts":{"a":"""))
    assert(json.contains(""""gone":["2049:7:3"]"""))
    assert(json.contains(""""goneHosts":["b"]"""))
    assert(!json.contains(""""c":"""), "a host alike in both is left out")
    assert(json.split("idle.log").length === 2, "only host d's idle file, new there, is written")
    val read = OffsetJson.read(json, id => if (id == snapshot.id) snapshot else fail(id))
    assert(read.hosts === now)
    assert(read === AofOffset(now, Some(snapshot)))
    assert(read.whole.json() === AofOffset(now).json())
  }
}
