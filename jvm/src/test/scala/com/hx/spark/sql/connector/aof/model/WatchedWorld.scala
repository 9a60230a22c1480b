package com.hx.spark.sql.connector.aof.model

import java.nio.file.{Files, LinkOption, Path}

import scala.collection.JavaConverters._
import scala.collection.mutable
import scala.util.Random

import com.hx.spark.sql.connector.aof.files.identity.FileStamp
import com.hx.spark.sql.connector.aof.files.listing.DirectoryChanges

/**
 * What a watch tells a node's scanner of a model's world, told as inotify would and at random
 * times: each directory whose entries or their stamps changed since the last `tell`, mostly at
 * once, sometimes only after the next look (an event still on its way while a look lists),
 * sometimes as events lost (the kernel's queue overflowed: the next look is whole). A directory
 * made or gone says the directories may be others, as the watch says it. As the endpoint's watch,
 * a directory is told once between two looks: its first change after a look begins ([[rearm]]).
 *
 * Nothing is told by the world itself: the files are compared, so an operation the model adds
 * later is told too.
 */
final class WatchedWorld(root: Path, rnd: Random) {
  private var before = snapshot()
  private val late = mutable.ArrayBuffer.empty[(Path, Boolean)]
  // Directories told since the last look began: nothing more of them is told until the next.
  private val told = mutable.Set.empty[Path]
  private var listener: (Path, Boolean) => Unit = (_, _) => ()
  private var toldLate = 0
  private var toldLost = 0

  /** The changes a new scanner hears: its first look is whole. */
  def changes(): DirectoryChanges = {
    val heard = new DirectoryChanges
    listener = heard.heard
    late.clear()
    told.clear()
    before = snapshot()
    heard
  }

  /**
   * A watch registered again: what is told from now on is told to `changed`, also what was on
   * its way (a real watch's events are the directory's, not a registration's).
   */
  def listen(changed: (Path, Boolean) => Unit): Unit = listener = changed

  /** Each change since the last `tell`, at once or after the next look, or lost. */
  def tell(): Unit = {
    val (was, now) = (before, snapshot())
    before = now
    val changed = (was.keySet ++ now.keySet).toSeq
      .filter(p => was.get(p) != now.get(p))
      .map(p => (p.getParent, was.get(p).orElse(now.get(p)).exists(_._1)))
      .distinct
      .filter { case (dir, _) => told.add(dir) }
    changed.foreach { case (dir, layout) =>
      rnd.nextInt(100) match {
        case n if n < 85 => listener(dir, layout)
        case n if n < 95 =>
          late += dir -> layout
          toldLate += 1
        case _ =>
          listener(dir, true)
          toldLost += 1
      }
    }
  }

  /** A look begins: every directory is watched again. */
  def rearm(): Unit = told.clear()

  /** A look ended: what was on its way is heard now. */
  def looked(): Unit = {
    late.foreach { case (dir, layout) => listener(dir, layout) }
    late.clear()
  }

  /** How often a change was told only after a look, and how often as events lost. */
  def figures: (Int, Int) = (toldLate, toldLost)

  // Each path under the root: whether it is a directory, and its stamp.
  private def snapshot(): Map[Path, (Boolean, Option[FileStamp])] = {
    val walk = Files.walk(root)
    try {
      walk.iterator.asScala
        .filter(_ != root)
        .flatMap { p =>
          val dir = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
          scala.util.Try(if (dir) None else Some(FileStamp.of(p))).toOption.map(s => p -> (dir, s))
        }
        .toMap
    } finally walk.close()
  }
}
