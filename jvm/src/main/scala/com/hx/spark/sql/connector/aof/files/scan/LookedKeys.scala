package com.hx.spark.sql.connector.aof.files.scan

import java.util.{Collections, IdentityHashMap}

import com.hx.spark.sql.connector.aof.files.identity.FileKey

/**
 * The files (by key) one or two looks looked at: those of the directories they took whole, by
 * directory, and the others. What a later look looked at, when it took every directory this one
 * took (the same objects), differs from this one's only in the others, told without a step per
 * file: among 20,000 quiet files, the tracker forgets what one busy directory's rotation renamed
 * away, not asked of each.
 */
private[files] final class LookedKeys(
    private val taken: Vector[KeptDirectories.Dir],
    private val others: collection.Set[FileKey]) {

  /** Both looks' files. */
  def ++(other: LookedKeys): LookedKeys =
    new LookedKeys(taken ++ other.taken, others ++ other.others)

  /**
   * The files looked at here and not by `later`, when `later` took every directory this took
   * (two looks of a scan at a rotation take some twice, in another order); None when it did not.
   */
  def goneBy(later: LookedKeys): Option[collection.Set[FileKey]] =
    if (!takenBy(later)) None
    else {
      val gone = others -- later.others
      // One described here may be in a directory `later` took whole (the second look of a scan).
      Some(if (gone.isEmpty) gone else gone.filterNot(k => later.taken.exists(_.byKey.contains(k))))
    }

  /** Every file's key, made when asked. */
  lazy val all: collection.Set[FileKey] = others ++ taken.iterator.flatMap(_.files.map(_.key))

  private def takenBy(later: LookedKeys): Boolean =
    (taken.size == later.taken.size && taken.iterator.zip(later.taken.iterator).forall {
      case (a, b) => a eq b
    }) || {
      val theirs =
        Collections.newSetFromMap(new IdentityHashMap[KeptDirectories.Dir, java.lang.Boolean])
      later.taken.foreach(theirs.add)
      taken.forall(theirs.contains)
    }
}
