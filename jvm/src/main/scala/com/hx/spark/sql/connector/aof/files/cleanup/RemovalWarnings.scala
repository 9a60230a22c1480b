package com.hx.spark.sql.connector.aof.files.cleanup

import java.nio.file.Path
import java.time.Clock

import scala.collection.mutable

import org.slf4j.LoggerFactory

/**
 * The files `cleanup` could not remove, each warned about when it first fails, then at most once
 * a minute while it still does: the node tries again at every trigger, several times a second.
 * And how many failed in the look under way, for the driver's `filesNotRemoved`.
 */
private[files] final class RemovalWarnings(clock: Clock) {
  private val log = LoggerFactory.getLogger(classOf[Cleanup])
  private val warnedMs = mutable.Map.empty[Path, Long]
  @volatile private var failedInLook = 0

  /** How many files could not be removed since the look began. */
  def failing: Int = failedInLook

  /** `path` could not be removed, for `why`. */
  def failed(path: Path, why: String): Unit = {
    failedInLook += 1
    val nowMs = clock.millis()
    if (warnedMs.get(path).forall(nowMs - _ >= RemovalWarnings.AgainMs)) {
      warnedMs(path) = nowMs
      log.warn(s"aof: $why; tried again at each trigger, said again at most once a minute")
    }
  }

  /**
   * A look begins: forgets the files no longer to be removed (one that fails again is said at
   * once) and the failures of the look before.
   */
  def keepOnly(paths: Set[Path]): Unit = {
    failedInLook = 0
    warnedMs.keys.filterNot(paths).toList.foreach(warnedMs -= _)
  }
}

private[files] object RemovalWarnings {
  val AgainMs: Long = 60000L
}
