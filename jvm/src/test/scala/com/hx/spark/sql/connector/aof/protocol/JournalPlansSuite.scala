package com.hx.spark.sql.connector.aof.protocol

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.offset.{FileOffset, HostOffsets, RetiredFile}

/** The rules of a plan journal: its segments, what a later batch carries over, its text. */
class JournalPlansSuite extends AnyFunSuite {
  import JournalPlansSuite._

  private val start = offsets(2L, at("a", 10L), at("b", 0L))
  private val readOn = offsets(2L, at("a", 40L), at("b", 5L))
  private val newFile = offsets(3L, at("a", 40L), at("b", 5L), at("c", 7L))
  private val dropped = offsets(3L, at("b", 9L), at("c", 7L)).copy(retired = retire("a", 40L))
  private val after = offsets(3L, at("b", 12L), at("c", 20L)).copy(retired = retire("a", 40L))

  test("plans that read on or add files make one segment; one that drops a file starts another") {
    val cases = Seq(
      (Nil, readOn, Seq(readOn)),
      (Seq(readOn), newFile, Seq(newFile)),
      (Seq(newFile), dropped, Seq(newFile, dropped)),
      (Seq(newFile, dropped), after, Seq(newFile, after))
    )
    cases.foreach { case (segments, end, expected) =>
      assert(JournalPlans.kept(segments, end) === expected, s"$segments then $end")
    }
  }

  test("a batch that starts inside a segment carries it and those after it over") {
    val segments = Seq(newFile, after)
    val insideFirst = offsets(3L, at("a", 20L), at("b", 5L), at("c", 0L))
    val insideSecond = offsets(3L, at("b", 9L), at("c", 7L)).copy(retired = retire("a", 40L))
    val cases = Seq(
      Some(insideFirst) -> segments,
      Some(newFile) -> segments, // at its end: its own ranges are empty
      Some(insideSecond) -> Seq(after),
      Some(after) -> Seq(after),
      Some(offsets(3L, at("b", 13L), at("c", 20L)).copy(retired = retire("a", 40L))) -> Nil,
      Some(start) -> Nil, // another structure: the journal was made elsewhere
      None -> Nil
    )
    cases.foreach { case (from, expected) =>
      assert(JournalPlans.carried(from, segments) === expected, s"from $from")
    }
  }

  test("a journal read back as written, for its own start only, whatever the maps' order") {
    val text = JournalPlans.write("h", Some(start), Seq(newFile, after))
    val reordered = start.copy(files = start.files.toSeq.reverse.toMap)
    assert(JournalPlans.read(text, "h", Some(reordered)) === Seq(newFile, after))
    assert(JournalPlans.read(text, "h", Some(readOn)) === Nil)
    assert(JournalPlans.read(text, "other", Some(start)) === Nil)
    assert(JournalPlans.read(JournalPlans.write("h", None, Seq(readOn)), "h", None) === Seq(readOn))
    assert(new JournalPlans.Text("h", Some(reordered)).names(text))
    assert(new JournalPlans.Text("h", Some(start)).names(JournalPlans.write("h", Some(start), Nil)))
    assert(!new JournalPlans.Text("h", Some(readOn)).names(text))
    assert(JournalPlans.reopened("h", Some(start), Some(start), text) === Seq(newFile, after))
    assert(JournalPlans.reopened("h", Some(newFile), Some(start), text) === Seq(newFile, after))
  }
}

object JournalPlansSuite {
  def at(name: String, pos: Long): FileOffset =
    FileOffset(
      s"/var/log/$name.log",
      FileKey(2049L, name.hashCode.toLong),
      1L,
      0L,
      pos,
      Fingerprint(0L, ""))

  def offsets(serial: Long, files: FileOffset*): HostOffsets =
    HostOffsets(serial, files.map(f => f.fileId -> f).toMap)

  def retire(name: String, pos: Long): Map[String, RetiredFile] = {
    val f = at(name, pos)
    Map(f.fileId -> RetiredFile(f))
  }
}
