package com.hx.spark.sql.connector.aof.offset

/**
 * A file no longer tracked (replaced, truncated or gone) whose bytes may live on in a copy the
 * node has not shown yet: a listing that missed the copy, or a look that saw the original cut
 * before it saw the copy. Kept beside the tracked files, so that a copy first seen later still
 * continues from `file.pos` rather than being read again from 0, until no copy can come.
 *
 * @param file    the file as it was last tracked
 * @param asked   how many answers found a file that may yet be its copy (its head, not its length)
 * @param lastAsk the request those answers last answered: the same answer planned against again
 *                (`Trigger.AvailableNow`) is not counted twice
 */
final case class RetiredFile(file: FileOffset, asked: Int = 0, lastAsk: String = "")

object RetiredFile {

  /**
   * How many answers a file that may be a copy (its head, shorter than the position) is waited
   * for: a copy is whole before its original goes, so one seen short is a file that only starts
   * alike (a banner) or a copy a look caught half-written, which the next look sees whole.
   */
  val MaxAsked: Int = 3
}
