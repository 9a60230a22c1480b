package com.hx.spark.sql.connector.aof.endpoint

import java.nio.file.Path
import java.util.concurrent.atomic.AtomicBoolean

import com.hx.spark.sql.connector.aof.files.listing.{DirectoryChanges, DirectoryWatch, SourceFiles}

/**
 * When a serving endpoint notes that its files may have changed: as soon as a watch says they
 * did, once more when a file a look saw goes quiet (what a look says changes with time alone: a
 * record flushed, a copy settled), and every so often anyway. Noting costs no look: the driver
 * calls for one at its next trigger. Runs on the endpoint's worker, through `submit`.
 *
 * Each directory a watch hears change is told to `changes`, so the next look lists only those;
 * the first look of each start, the look every so often, and every look while a directory cannot
 * be watched are whole.
 *
 * @param submit   runs a task on the endpoint's worker after a delay (ms)
 * @param note     notes that the files may have changed
 * @param fallback every so often: reads again what a ZooKeeper watch may have missed
 * @param lookMs   how long the last whole look took: while a directory cannot be watched, the
 *                 looks soon after take a hundredth of the time
 * @param nowMs    the time due times are kept in (ms): tests move it
 */
private[endpoint] final class LookSchedule(
    files: SourceFiles,
    changes: DirectoryChanges,
    submit: (() => Unit, Long) => Unit,
    note: () => Unit,
    fallback: () => Unit,
    lookMs: () => Long,
    nowMs: () => Long = () => System.nanoTime() / 1000000L) {
  import LookTimes.{FallbackMs, UnwatchedFallbackMs}

  private val noteQueued = new AtomicBoolean(false)
  private val layoutChanged = new AtomicBoolean(false)
  private var unwatchedQueued = false
  // When the note for a file going quiet comes (ms, `nowMs`'s), if one is to come.
  @volatile private var settleDueMs: Option[Long] = None
  private var watch: Option[DirectoryWatch.Registration] = None
  // Each start begins a round; the fallback notes of an earlier round end.
  private var round = 0
  // When the next look at every file is due (ms, `nowMs`'s): each start's first at once.
  private var wholeDueMs = Long.MinValue

  /** Begins watching and noting; on the worker. */
  def start(): Unit = {
    round += 1
    wholeDueMs = Long.MinValue
    fallbackNote(round)
  }

  /**
   * A look begins: the directories heard since the last one are watched again (every one, with
   * the pattern matched again, when those may be others). A directory is heard once between two
   * looks (the first change is all a note needs), so a file written all the time costs one event
   * a look, not one a write. On the worker.
   */
  def rearm(): Unit = watch.foreach { w =>
    w.again() match {
      case Some(again) => watch = Some(again)
      case None => watchAgain()
    }
  }

  /**
   * A look listed every directory in `tookMs`: the next such look is noted a thousand times that
   * later ([[LookTimes.fallbackAfterMs]], [[fallbackNote]]). On the worker.
   */
  def lookedWhole(tookMs: Long): Unit = wholeDueMs = nowMs() + LookTimes.fallbackAfterMs(tookMs)

  /** Ends watching and noting; on the worker. */
  def stop(): Unit = {
    round += 1
    watch.foreach(_.close())
    watch = None
    settleDueMs = None
  }

  /**
   * A look saw a file that goes quiet enough in `inMs` for a look to say more of it: noted then,
   * unless a note comes sooner. Each look says it again for the files it saw, so a later one
   * written meanwhile is not missed. On the worker.
   */
  def settlesIn(inMs: Long): Unit = {
    val dueMs = nowMs() + inMs
    if (settleDueMs.forall(dueMs < _)) {
      settleDueMs = Some(dueMs)
      submit(
        () =>
          if (settleDueMs.contains(dueMs)) {
            settleDueMs = None
            note()
          },
        dueMs - nowMs())
    }
  }

  /** Whether the note for a file going quiet is still to come. */
  def settling: Boolean = settleDueMs.nonEmpty

  /**
   * A file changed (on the watch's thread): noted at once, one task for a burst of events. With
   * `layout` (a directory made, say) the directories are watched again first.
   */
  private def changed(dir: Path, layout: Boolean): Unit = {
    changes.heard(dir, layout)
    if (layout) layoutChanged.set(true)
    if (noteQueued.compareAndSet(false, true)) {
      submit(
        () => {
          noteQueued.set(false)
          // Not once stopped: an endpoint standing by watches nothing.
          if (layoutChanged.getAndSet(false) && watch.nonEmpty) watchAgain()
          note()
        },
        0L
      )
    }
  }

  /**
   * Every minute, reads again what a ZooKeeper watch may have missed (`fallback`), and once a
   * look at every file is due, watches the directories again (a pattern's new ones) and notes a
   * change: a look the driver calls for then catches what no watch told. Such a look is due a
   * thousand times as long as the last one took after it ([[lookedWhole]]), so a node of 20,000
   * files looks at them all every few minutes, not every minute (a hundredth of the time where a
   * directory cannot be watched, [[unwatchedNote]]).
   */
  private def fallbackNote(started: Int): Unit = if (started == round) {
    fallback()
    if (nowMs() >= wholeDueMs) {
      changes.all()
      watchAgain()
      note()
      // Due again in a minute, should the look it calls for not come or fail.
      wholeDueMs = nowMs() + FallbackMs
    }
    submit(() => fallbackNote(started), FallbackMs)
  }

  /**
   * Notes a change soon after a look that could not watch every directory (one unreadable, say,
   * or not made yet): what changes there may tell no one, so the next look comes within about a
   * second, whenever in the fallback's minute the watch fell short.
   */
  private def unwatchedNote(started: Int): Unit = if (!unwatchedQueued) {
    unwatchedQueued = true
    submit(
      () => {
        unwatchedQueued = false
        if (started == round) note()
      },
      math.max(UnwatchedFallbackMs, lookMs() * 100))
  }

  /**
   * Watches the directories again ([[DirectoryWatch.registerFor]]). One that cannot be watched
   * brings a note soon ([[unwatchedNote]]).
   */
  private def watchAgain(): Unit = {
    val again = DirectoryWatch.registerFor(files, changed, once = true)
    watch.foreach(_.close())
    watch = Some(again)
    if (!again.complete) {
      changes.all() // what changes where no watch is heard by no one
      unwatchedNote(round)
    }
  }
}
