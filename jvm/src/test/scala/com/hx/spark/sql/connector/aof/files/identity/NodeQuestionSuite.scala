package com.hx.spark.sql.connector.aof.files.identity

import org.scalatest.funsuite.AnyFunSuite

/** When a node looks again: what a look found against what the driver asked. */
class NodeQuestionSuite extends AnyFunSuite {
  private val head = Fingerprint(1024, "a" * 32)
  private val other = Fingerprint(1024, "b" * 32)
  private val tracked = KnownFile(FileKey(1, 1), 500, head)
  private val retired = KnownFile(FileKey(1, 2), 300, head)

  private def found(key: FileKey, print: Fingerprint = head): FileMeta =
    FileMeta("/logs/app.log", key, 900, 900, print, None)

  private def question(
      retiredToo: Boolean = false,
      checked: Boolean = true,
      sample: Int = 1024): NodeQuestion =
    new NodeQuestion(
      Seq(tracked),
      if (retiredToo) Map("1:2:0" -> retired) else Map.empty,
      sample,
      FileIdentity(checked))

  private case class Case(
      name: String,
      question: NodeQuestion,
      found: Seq[FileMeta],
      missesTracked: Boolean,
      mayMissCopies: Boolean)

  // format: off
  private val cases = Seq(
    Case("every tracked file, its head kept", question(), Seq(found(tracked.key)), false, false),
    Case("a tracked file missing", question(), Seq(found(FileKey(1, 9))), true, true),
    Case("a tracked key holding another head", question(), Seq(found(tracked.key, other)), false, true),
    Case("the same, unreadable: nothing known of it", question(), Seq(found(tracked.key, other).copy(unreadable = Some("denied"))), false, false),
    Case("the same, md5 checks off: its key is trusted", question(checked = false), Seq(found(tracked.key, other)), false, false),
    Case("a retired file without a copy", question(retiredToo = true), Seq(found(tracked.key)), false, true),
    Case("a retired file with its copy", question(retiredToo = true), Seq(found(tracked.key), found(FileKey(1, 3)).copy(copyOfRetired = Some("1:2:0"))), false, false)
  )
  // format: on

  cases.foreach { c =>
    test(c.name) {
      assert(c.question.missesTracked(c.question.trackedIn(c.found)) === c.missesTracked)
      assert(c.question.mayMissCopies(c.found, c.question.trackedIn(c.found)) === c.mayMissCopies)
    }
  }

  test("a file may be a copy when it starts as a tracked or retired file, or one is short") {
    assert(question().mayBeCopy(head))
    assert(!question().mayBeCopy(other))
    assert(question(sample = 2048).mayBeCopy(other), "the tracked file is shorter than the sample")
  }
}
