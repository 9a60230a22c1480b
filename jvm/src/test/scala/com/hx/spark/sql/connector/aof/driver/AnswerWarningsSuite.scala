package com.hx.spark.sql.connector.aof.driver

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, FileStamp, Fingerprint}

class AnswerWarningsSuite extends AnyFunSuite {
  private val said = mutable.ArrayBuffer.empty[String]
  private val warnings =
    new AnswerWarnings(Seq("/logs"), m => said += s"WARN $m", m => said += s"INFO $m")

  private def unreadable(path: String) =
    FileMeta.unreadable(
      path,
      FileStamp(FileKey(1, path.length), 10, 0, 0, true),
      "Permission denied")

  private def said(answers: Answers*): Seq[String] = {
    said.clear()
    answers.foreach(warnings.update)
    said.toList
  }

  test("each problem is said when it starts and when it ends, never at every trigger") {
    val absent = Answers(Map("h1" -> Nil), absent = Set("h1"))
    assert(
      said(absent, absent) === Seq(
        "WARN aof: /logs does not exist on h1 (check `path` for a typo); it is looked for at " +
          "every trigger and its files are read once it appears"))
    val locked = Answers(Map("h1" -> Seq(unreadable("/logs/a.log"))))
    assert(
      said(locked, locked, Answers(Map.empty)) === Seq(
        "INFO aof: /logs on h1 can be listed again",
        "WARN aof: cannot read h1:/logs/a.log (Permission denied); its position is kept, and it " +
          "is read on from there once it can be"
      ))
    val unlisted = Answers(Map.empty, unlisted = Map("h1" -> "/logs cannot be listed (x)"))
    assert(
      said(unlisted, unlisted) === Seq(
        "WARN aof: on h1, /logs cannot be listed (x); its files are read once it can be listed"))
    assert(
      said(Answers(Map("h1" -> Nil))) === Seq(
        "INFO aof: /logs on h1 can be listed again",
        "INFO aof: h1:/logs/a.log can be read again"))
  }

  test("files none of which 'path' matches are said once a host, until it matches one") {
    val closest = Answers(Map("h1" -> Nil), closest = Map("h1" -> Seq("/logs/App.log")))
    val warned = said(closest, closest)
    assert(warned.size === 1, warned)
    assert(
      warned.head.startsWith(
        "WARN aof: /logs on h1 holds files, but 'path' matches none of them; the closest: " +
          "/logs/App.log."),
      warned)
    assert(said(Answers(Map("h2" -> Nil)), closest) === Nil) // another host: h1 still unmatched
    assert(said(Answers(Map("h1" -> Seq(unreadable("/logs/a.log"))))).size === 1) // unreadable
    assert(said(closest).head === warned.head) // matched one, then none again: said again
  }

  test("two hosts reporting the same file are said once, naming node.name.env") {
    def file(ino: Long, head: String, size: Long = 10) =
      FileMeta("/logs/a.log", FileKey(1, ino), size, size, Fingerprint(size, head), None)
    val shared = Answers(Map("h1" -> Seq(file(5, "x")), "h2" -> Seq(file(5, "x"))))
    val warned = said(shared, shared)
    assert(warned.size === 1)
    assert(warned.head.startsWith("WARN aof: hosts h1, h2 report the same file /logs/a.log"))
    assert(warned.head.contains("set the option node.name.env"))
    // Another content, another inode, or nothing in it yet: not one file.
    val h3 = Seq(file(6, "y"), file(7, "x"), file(8, "", size = 0))
    val h4 = Seq(file(6, "z"), file(9, "x"), file(8, "", size = 0))
    assert(said(Answers(Map("h3" -> h3, "h4" -> h4))).isEmpty)
  }

  test("a file unreadable, renamed, read again or gone: said as whole answers compared say") {
    // Files not changed are the same objects from answer to answer, as the driver keeps them.
    val random = new Random(11)
    def file(ino: Int, path: String, why: Option[String]) =
      FileMeta(path, FileKey(1, ino), 10, 10, Fingerprint(10, s"h$ino"), None, unreadable = why)
    def whys = Seq(None, None, Some("Permission denied"), Some("I/O error"))
    (1 to 100).foreach { run =>
      val said = mutable.ArrayBuffer.empty[String]
      val warnings = new AnswerWarnings(Seq("/logs"), said += _, m => said += s"INFO $m")
      var unreadable = Map.empty[String, String] // the model: path -> why, of whole answers
      var files = (1 to 1 + random.nextInt(8)).map(i => file(i, s"/logs/f$i", None))
      var next = 100
      (1 to 25).foreach { step =>
        files = random.nextInt(8) match {
          case 0 => random.shuffle(files) // another order
          case 1 if files.nonEmpty => files.tail // one gone
          case 2 =>
            next += 1 // one new, at a path another may have had
            val free = (1 to 12).map(i => s"/logs/f$i").filterNot(p => files.exists(_.path == p))
            files :+ file(next, random.shuffle(free).head, whys(random.nextInt(4)))
          case _ =>
            files.map { f =>
              random.nextInt(6) match {
                case 0 => f.copy(unreadable = whys(random.nextInt(4)))
                case 1 if !files.exists(_.path == f.path + ".1") => f.copy(path = f.path + ".1")
                case _ => f
              }
            }
        }
        said.clear()
        if (random.nextInt(10) == 0) warnings.update(Answers(Map.empty, Map("h1" -> "x")))
        else {
          warnings.update(Answers(Map("h1" -> files)))
          val found = files.flatMap(f => f.unreadable.map(f.path -> _)).toMap
          val expected = found.toSeq.sorted.collect {
            case (p, why) if !unreadable.get(p).contains(why) =>
              s"aof: cannot read h1:$p ($why); its position is kept, and it is read on from " +
                "there once it can be"
          } ++ unreadable.keys.toSeq.sorted.filterNot(found.contains).map { p =>
            s"INFO aof: h1:$p can be read again"
          }
          unreadable = found
          assert(said.filterNot(_.contains("listed")) === expected, s"run $run, step $step")
        }
      }
    }
  }
}
