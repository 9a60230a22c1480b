package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopy
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta}

/**
 * A node's answer to the request `id`. In full, or with `base` as the change from its answer to
 * `base`: `files` new or changed since, `gone` those no longer there. `needsFull` when the request
 * was a change from one this node did not answer (it took over from another, or its answer came
 * too late): it asks for the request in full. `unlisted` says why the node could not list its
 * directory, when it could not: its files are then unknown, and `files` is empty. `absent` when
 * the directory does not exist (yet): the node has no files. `retired`: the retired files of the
 * request that this answer looked for copies of (every one, unless `unlisted` or `needsFull`).
 * `ignored`: how many files the node left unread for `ignore.older` (see `FileMeta.ignored`),
 * counting compressed ones, which it does not report. `removed`: the files of the request's
 * `remove` that this answer removed (`cleanup`); they are not in `files`. `notRemoved`: how many
 * of them it tried to remove and could not (a permission, a missing archive directory).
 * `closest`: when the node has no file, the paths of those in its directories closest to the
 * file-name regex ([[com.hx.spark.sql.connector.aof.files.listing.ClosestNames]]). `unmatchedCopies`: by
 * retired file id, the file no `path` reads that holds its bytes past its position, for those of
 * `retired` with no copy in `files` ([[com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopies]]).
 *
 * A node answers a request again at each look called after its files changed, until the next
 * request: `name` names each answer (empty: the request's id), and the driver plans from the
 * latest answer it has not planned yet. `look` and `pulled`: the driver's last calls to look that
 * the node had answered, at every node ([[ZkPaths.look]]) and at this one ([[ZkPaths.pull]]), a
 * number each: an answer to one call, written after one to the other, takes back nothing the
 * other said. `seq`: that of the request answered. `changes`: the node's count of changes
 * ([[ZkPaths.changed]]) that this answer's look saw.
 */
final case class Answer(
    id: String,
    files: Seq[FileMeta],
    base: Option[String] = None,
    gone: Seq[FileKey] = Nil,
    needsFull: Boolean = false,
    unlisted: Option[String] = None,
    absent: Boolean = false,
    retired: Seq[String] = Nil,
    ignored: Int = 0,
    removed: Seq[FileKey] = Nil,
    notRemoved: Int = 0,
    closest: Seq[String] = Nil,
    unmatchedCopies: Map[String, UnmatchedCopy] = Map.empty,
    name: String = "",
    look: Long = 0L,
    pulled: Long = 0L,
    seq: Long = 0L,
    changes: Long = 0L) {

  /** What names this answer apart from the node's other answers to the same request. */
  def answerId: String = if (name.isEmpty) id else name
}
