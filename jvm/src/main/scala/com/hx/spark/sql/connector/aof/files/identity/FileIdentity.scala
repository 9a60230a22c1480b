package com.hx.spark.sql.connector.aof.files.identity

/**
 * The one rule for what a file holds now against what was known of it (a [[KnownFile]]: a
 * position, the head and the bytes just before the position then). The node, the planner and the
 * reader all ask it: whether a tracked key still holds its file, whether an untracked file is a
 * copy of a tracked or retired one, whether a file reaches a planned range.
 *
 * With `checked` false (`md5.check.enabled`), a key is trusted to hold the file it held: only
 * its size is compared. A file under another key is still told a copy by its head and tail, for
 * nothing else can tell it.
 */
final case class FileIdentity(checked: Boolean) {
  import FileIdentity._

  /**
   * What the file under `known`'s key holds of it now.
   *
   * @param size bytes in the file now
   * @param head the file's first `known.fingerprint.length` bytes' MD5, None when it is shorter
   * @param tail the MD5 of the bytes just before `known.floor`, when that was looked at (None
   *             when it was not; Some(None) when the file does not reach it)
   */
  def ofKey(
      known: KnownFile,
      size: Long,
      head: => Option[Fingerprint],
      tail: => Option[Option[Fingerprint]]): Verdict =
    if (checked) compare(known, size, head, tail)
    else if (known.floor > size) Shorter
    else Same

  /** [[ofKey]], from a node's answer about the file under `known`'s key. */
  def ofKey(known: KnownFile, answer: FileMeta): Verdict =
    ofKey(known, answer.size, answer.headAt(known.fingerprint.length), answer.tailAt(known.floor))

  /**
   * Whether the file under `known`'s key still starts as it did, so that it is no copy of
   * another file (it may still be cut back, or rewritten after its head).
   */
  def keepsHead(known: KnownFile, head: => Option[Fingerprint]): Boolean =
    !checked || sameHead(known.fingerprint, head)

  /**
   * What a file under another key holds of `known`: `Same`, a whole copy; `Shorter`, the start
   * of one (a copy is written front to back); `Replaced`, none. A file known by no head (empty
   * when last seen) has nothing a copy could be told by.
   */
  def ofCopy(
      known: KnownFile,
      size: Long,
      head: => Option[Fingerprint],
      tail: => Option[Option[Fingerprint]]): Verdict =
    if (!copyable(known.fingerprint)) Replaced else compare(known, size, head, tail)
}

object FileIdentity {

  sealed trait Verdict

  /** It holds what was known, to the position: read on. */
  case object Same extends Verdict

  /** It starts as it did but ends before the position: cut back, or a copy still being written. */
  case object Shorter extends Verdict

  /** Other bytes: another file under a reused key, a file truncated and written again. */
  case object Replaced extends Verdict

  private def compare(
      known: KnownFile,
      size: Long,
      head: => Option[Fingerprint],
      tail: => Option[Option[Fingerprint]]): Verdict =
    if (!sameHead(known.fingerprint, head)) Replaced
    else if (known.floor > size) Shorter
    else if (known.tail.exists(t => tail.exists(now => !now.contains(t)))) Replaced
    else Same

  /**
   * Whether a copy of a file known by `head` can be told by it: one known by no head (empty when
   * last seen) cannot, and a copy of it is found only by what it holds now ([[ShortHeadCopies]]).
   */
  def copyable(head: Fingerprint): Boolean = head.length > 0

  /** Whether a file whose head at `known`'s length is `head` starts as `known` says. */
  def sameHead(known: Fingerprint, head: Option[Fingerprint]): Boolean = head.contains(known)
}
