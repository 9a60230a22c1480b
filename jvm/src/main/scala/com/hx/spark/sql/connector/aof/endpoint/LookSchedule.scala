package com.hx.spark.sql.connector.aof.endpoint

import java.util.concurrent.atomic.AtomicBoolean

import scala.util.Try

import com.hx.spark.sql.connector.aof.files.{DirectoryWatch, SourceFiles}

/**
 * When a serving endpoint looks at its files again: soon after they change, once more when they
 * went quiet, and every so often anyway. Runs on the endpoint's worker, through `submit`.
 *
 * @param flushMs  how long a record may wait for its next line: a look after the files went
 *                 quiet comes after that
 * @param submit   runs a task on the endpoint's worker after a delay (ms)
 * @param look     looks and answers the standing request if what it says changed
 * @param fallback at each look every so often: reads again what a ZooKeeper watch may have missed
 */
private[endpoint] final class LookSchedule(
    files: SourceFiles,
    flushMs: Long,
    submit: (() => Unit, Long) => Unit,
    look: () => Unit,
    fallback: () => Unit) {
  import NodeEndpoint.{FallbackMs, MinLookMs, UnwatchedFallbackMs}

  private val settleMs = math.max(100L, flushMs) + 20L
  private val lookQueued = new AtomicBoolean(false)
  private val settleQueued = new AtomicBoolean(false)
  private var watch: Option[DirectoryWatch.Registration] = None
  // Each start begins a round; the fallback looks of an earlier round end.
  private var round = 0

  /** Begins watching and looking; on the worker. */
  def start(): Unit = {
    round += 1
    fallbackLook(round)
  }

  /** Ends watching and looking; on the worker. */
  def stop(): Unit = {
    round += 1
    watch.foreach(_.close())
    watch = None
  }

  /**
   * A file changed: a look [[NodeEndpoint.MinLookMs]] after the first change of a burst (a file
   * written all the time is not looked at with every write, and a rotation's renames,
   * compression and removal are seen done, not half way), and another once the files went
   * quiet, when what a look says changes with time alone (a record flushed, a copy settled).
   */
  private def changed(): Unit = {
    if (lookQueued.compareAndSet(false, true)) {
      submit(() => { lookQueued.set(false); look() }, MinLookMs)
    }
    if (settleQueued.compareAndSet(false, true)) {
      submit(() => { settleQueued.set(false); look() }, MinLookMs + settleMs)
    }
  }

  /** Watches the directories again (a pattern's new ones), and looks every so often anyway. */
  private def fallbackLook(started: Int): Unit = if (started == round) {
    fallback()
    val dirs = Try(files.directories().map(_.path)).getOrElse(Nil) ++ files.roots
    val again = DirectoryWatch.register(dirs, () => changed())
    watch.foreach(_.close())
    watch = Some(again)
    look()
    submit(() => fallbackLook(started), if (again.complete) FallbackMs else UnwatchedFallbackMs)
  }
}
