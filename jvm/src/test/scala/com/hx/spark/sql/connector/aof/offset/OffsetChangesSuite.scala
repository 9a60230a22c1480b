package com.hx.spark.sql.connector.aof.offset

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}

/**
 * An offset's changes since its snapshot, found from the offset it was planned from and the
 * files that plan changed, are those found by comparing every file.
 */
class OffsetChangesSuite extends AnyFunSuite {
  private def file(i: Int, pos: Long) =
    FileOffset(s"/logs/$i.log", FileKey(1L, i.toLong), i.toLong, 0L, pos, Fingerprint(10L, s"$i"))

  /** A plan from `before`: some files moved on, back to an earlier position, new or dropped. */
  private def planned(before: HostOffsets, random: Random, base: HostOffsets): HostOffsets = {
    val ids = before.files.keys.toVector
    val changes = (0 until random.nextInt(4)).map { _ =>
      random.nextInt(4) match {
        case 0 if ids.nonEmpty =>
          val f = before.files(ids(random.nextInt(ids.size)))
          Left(f.fileId -> f.copy(pos = f.pos + 1 + random.nextInt(10)))
        case 1 if ids.nonEmpty =>
          // Where the snapshot had it: the very value, changed back.
          val id = ids(random.nextInt(ids.size))
          base.files.get(id).orElse(before.files.get(id)).map(f => Left(id -> f)).get
        case 2 if ids.nonEmpty => Right(ids(random.nextInt(ids.size)))
        case _ =>
          val f = file(1000 + random.nextInt(1000), random.nextInt(50).toLong)
          Left(f.fileId -> f)
      }
    }
    val moved = changes.collect { case Left(c) => c }.toMap
    val dropped = changes.collect { case Right(id) => id }.filterNot(moved.contains)
    val next = HostOffsets(before.nextSerial + 1, before.files -- dropped ++ moved)
    HostOffsets.madeFrom(next, before, moved.keySet ++ dropped)
  }

  test("changes since a snapshot, found from the offset planned from, are those of every file") {
    (1 to 50).foreach { seed =>
      val random = new Random(seed)
      val base =
        HostOffsets(200L, (0 until 200).map(i => file(i, 100L)).map(f => f.fileId -> f).toMap)
      val snapshot = new OffsetSnapshot("s", Map("h" -> base, "quiet" -> base))
      var offset = AofOffset(snapshot.hosts, Some(snapshot))
      assert(offset.changes._1.isEmpty)
      (1 to 30).foreach { step =>
        val hosts = offset.hosts + ("h" -> planned(offset.hosts("h"), random, base))
        val next = AofOffset.onBaseOf(offset, hosts, None)
        val inFull = OffsetChanges.between(snapshot.hosts, hosts)
        assert(next.changes == inFull, s"seed $seed, step $step")
        assert(!AofOffset.sameHosts(next.hosts, offset.hosts) && AofOffset.sameHosts(hosts, hosts))
        offset = next
      }
    }
  }

  test("a host planned from offsets no plan made is compared file by file") {
    val base = HostOffsets(2L, Map(file(0, 5L).fileId -> file(0, 5L)))
    val snapshot = new OffsetSnapshot("s", Map("h" -> base))
    val parsed = AofOffset(Map("h" -> base.copy()), Some(snapshot))
    assert(parsed.changes._1.isEmpty)
    val moved = HostOffsets(2L, Map(file(0, 9L).fileId -> file(0, 9L)))
    val next = AofOffset.onBaseOf(parsed, Map("h" -> moved), None)
    assert(next.changes == OffsetChanges.between(snapshot.hosts, next.hosts))
    assert(next.changes._1("h").files.values.map(_.pos).toSeq == Seq(9L))
    assert(AofOffset.sameHosts(Map("h" -> base), Map("h" -> base.copy())))
  }
}
