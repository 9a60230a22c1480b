package com.hx.spark.sql.connector.aof.files.identity

import org.scalatest.funsuite.AnyFunSuite

/** When a node looks again: what a look found against what the driver asked. */
class NodeRequestSuite extends AnyFunSuite {
  private val head = Fingerprint(1024, "a" * 32)
  private val other = Fingerprint(1024, "b" * 32)
  private val tracked = KnownFile(FileKey(1, 1), 500, head)
  private val retired = KnownFile(FileKey(1, 2), 300, head)

  private def found(key: FileKey, print: Fingerprint = head): FileMeta =
    FileMeta("/logs/app.log", key, 900, 900, print, None)

  private def request(
      retiredToo: Boolean = false,
      checked: Boolean = true,
      sample: Int = 1024): NodeRequest =
    new NodeRequest(
      Seq(tracked),
      if (retiredToo) Map("1:2:0" -> retired) else Map.empty,
      sample,
      FileIdentity(checked))

  private case class Case(
      name: String,
      request: NodeRequest,
      found: Seq[FileMeta],
      missesTracked: Boolean,
      mayMissCopies: Boolean)

  // format: off
  private val cases = Seq(
    Case("every tracked file, its head kept", request(), Seq(found(tracked.key)), false, false),
    Case("a tracked file missing", request(), Seq(found(FileKey(1, 9))), true, true),
    Case("a tracked key holding another head", request(), Seq(found(tracked.key, other)), false, true),
    Case("the same, unreadable: nothing known of it", request(), Seq(found(tracked.key, other).copy(unreadable = Some("denied"))), false, false),
    Case("the same, md5 checks off: its key is trusted", request(checked = false), Seq(found(tracked.key, other)), false, false),
    Case("a retired file without a copy", request(retiredToo = true), Seq(found(tracked.key)), false, true),
    Case("a retired file with its copy", request(retiredToo = true), Seq(found(tracked.key), found(FileKey(1, 3)).copy(copyOfRetired = Some("1:2:0"))), false, false)
  )
  // format: on

  cases.foreach { c =>
    test(c.name) {
      assert(c.request.missesTracked(c.request.trackedIn(c.found)) === c.missesTracked)
      assert(c.request.mayMissCopies(c.found, c.request.trackedIn(c.found)) === c.mayMissCopies)
    }
  }

  test("a file may be a copy when it starts as a tracked or retired file, or one is short") {
    assert(request().mayBeCopy(head))
    assert(!request().mayBeCopy(other))
    assert(request(sample = 2048).mayBeCopy(other), "the tracked file is shorter than the sample")
  }
}
