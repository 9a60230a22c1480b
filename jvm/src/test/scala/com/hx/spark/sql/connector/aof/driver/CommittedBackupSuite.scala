package com.hx.spark.sql.connector.aof.driver

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.ZooKeeperFixture

/**
 * The committed offsets backed up in a real ZooKeeper: at each trigger while a backup is quick,
 * and no more often than a hundred times its own time once it is not (thousands of files).
 */
class CommittedBackupSuite extends AnyFunSuite with ZooKeeperFixture {
  private lazy val client = zkClient("/backup")

  /** The checkpoint's offsets, each read taking `readMs` of a clock the test moves. */
  private final class Checkpoint(readMs: Long) {
    @volatile var nowNs: Long = 0L
    @volatile var json: String = ""
    def read(): Option[String] = {
      nowNs += readMs * 1000000L
      Some(json)
    }
  }

  private def backedUp(checkpoint: Checkpoint, backup: OffsetBackup)(
      trigger: CommittedBackup => Unit): Option[String] = {
    val b = new CommittedBackup(() => checkpoint.read(), () => checkpoint.nowNs)
    trigger(b)
    b.stop() // what it began, done
    backup.read()
  }

  test("a slow backup waits a hundred times its own time after the last one") {
    val spacedNs = 30L * 1000000L * CommittedBackup.Spacing
    def twoBackups(apartNs: Long, store: String): Option[String] = {
      val backup = new OffsetBackup(client, store)
      val checkpoint = new Checkpoint(readMs = 30L)
      backedUp(checkpoint, backup) { b =>
        checkpoint.json = """{"batch":1}"""
        b.now(backup)
        checkpoint.nowNs += apartNs
        checkpoint.json = """{"batch":2}"""
        b.soon(backup)
      }
    }
    assert(twoBackups(spacedNs - 1000000L, "/soon").contains("""{"batch":1}"""))
    assert(twoBackups(spacedNs, "/spaced").contains("""{"batch":2}"""))
  }

  test("a quick backup is made at every trigger") {
    val backup = new OffsetBackup(client, "/quick")
    val checkpoint = new Checkpoint(readMs = 0L)
    val found = backedUp(checkpoint, backup) { b =>
      checkpoint.json = """{"batch":1}"""
      b.now(backup)
      checkpoint.nowNs += 1000000L
      checkpoint.json = """{"batch":2}"""
      b.soon(backup)
    }
    assert(found.contains("""{"batch":2}"""))
  }
}
