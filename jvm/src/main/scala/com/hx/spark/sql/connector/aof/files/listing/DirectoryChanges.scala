package com.hx.spark.sql.connector.aof.files.listing

import java.nio.file.Path

/**
 * The directories a watch said changed since the last look: a look lists and stats only those,
 * and takes the others as the look before found them ([[DirectoryScanner]]). So a file written
 * among 20,000 quiet ones costs a look what it costs alone.
 *
 * A look is whole (every directory listed, every file statted) when the watch cannot say what
 * changed: the first look, events lost or the directories perhaps others (`heard` with
 * `layout`), a directory not watched, and whenever the caller wants one ([[all]]).
 *
 * A directory heard is listed by the next two looks. The endpoint's watch hears a directory once
 * between two looks, watching it again as a look begins; heard after that, amid a look that
 * lists it, what is written there until the next look begins tells no one.
 */
final class DirectoryChanges {
  private var changed = Set.empty[Path]
  private var lastTaken = Set.empty[Path]
  private var whole = true

  /** A watch heard `dir` change; with `layout`, the directories may be others now. */
  def heard(dir: Path, layout: Boolean): Unit = synchronized {
    if (layout) whole = true
    changed += dir
  }

  /** The next look is whole. */
  def all(): Unit = synchronized { whole = true }

  /**
   * The directories heard since the last look began, none when the next look is to be whole
   * (events were lost, say): what a look under way may not have seen.
   */
  def heardSince: Option[Set[Path]] = synchronized(if (whole) None else Some(changed))

  /**
   * As a look begins: the directories heard since the last two looks began, none when the look
   * is to be whole. What is heard from now on is the next look's.
   */
  def take(): Option[Set[Path]] = synchronized {
    val taken = if (whole) None else Some(changed ++ lastTaken)
    lastTaken = changed
    changed = Set.empty
    whole = false
    taken
  }
}
